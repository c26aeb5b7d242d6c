import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sleep } from '../../util/abort.js';

/** A cgroup controller massgen bounds commands with. */
export type Controller = 'pids' | 'memory';

const CGROUP_FS = '/sys/fs/cgroup';

/** Where massgen makes a command's cgroup for one controller: a v1 hierarchy's folder, or v2's root. */
interface Hierarchy {
  dir: string;
  version: 1 | 2;
}

const hierarchies = new Map<Controller, Hierarchy | null>();

/**
 * The folder root may create `controller`'s cgroups in, tried once; null: not root, or not here (a
 * container's read-only cgroupfs). v1: the controller's own hierarchy — for memory, below massgen's
 * own cgroup, so whatever bounds massgen still bounds its commands; v2: the root, with the controller
 * switched on for its children (the root alone may hold processes and enable controllers at once).
 */
function hierarchy(controller: Controller): Hierarchy | null {
  const known = hierarchies.get(controller);
  if (known !== undefined) return known;
  let found: Hierarchy | null = null;
  if (process.getuid?.() === 0) {
    try {
      const v1 = path.join(CGROUP_FS, controller);
      if (existsSync(path.join(v1, 'cgroup.procs'))) {
        found = { dir: controller === 'memory' ? path.join(v1, ownV1Cgroup(controller)) : v1, version: 1 };
      } else if (
        readFileSync(path.join(CGROUP_FS, 'cgroup.controllers'), 'utf8').split(/\s+/).includes(controller)
      ) {
        const control = path.join(CGROUP_FS, 'cgroup.subtree_control');
        if (!readFileSync(control, 'utf8').split(/\s+/).includes(controller))
          writeFileSync(control, `+${controller}`);
        found = { dir: CGROUP_FS, version: 2 };
      }
      if (found !== null) {
        const trial = path.join(found.dir, `massgen-probe-${process.pid}`);
        mkdirSync(trial);
        rmdirSync(trial);
        removeStale(found.dir);
      }
    } catch {
      // Not allowed here.
      found = null;
    }
  }
  hierarchies.set(controller, found);
  return found;
}

/** massgen's own cgroup in a v1 hierarchy (`N:memory:/path` in /proc/self/cgroup), relative. */
function ownV1Cgroup(controller: Controller): string {
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const [, controllers, where] = line.split(':');
    if (controllers?.split(',').includes(controller) && where) return where.replace(/^\/+/, '');
  }
  return '';
}

/**
 * Removes the cgroups of commands whose massgen was killed (`kill -9`) before it could: a command's
 * cgroup has its first process a moment after it is made, so one empty for a minute is left over
 * (one still in use cannot be removed anyway).
 */
function removeStale(root: string): void {
  for (const name of readdirSync(root)) {
    if (!name.startsWith('massgen-')) continue;
    try {
      const dir = path.join(root, name);
      if (Date.now() - statSync(dir).ctimeMs > 60_000) rmdirSync(dir);
    } catch {
      // In use, or gone.
    }
  }
}

/** Whether root can bound a command with `controller`'s cgroup here (see {@link hierarchy}). */
export function cgroupAvailable(controller: Controller): boolean {
  return hierarchy(controller) !== null;
}

/** The cgroups of one command: one folder per hierarchy (v2: one for both controllers). */
export interface CommandCgroups {
  /** The `cgroup.procs` files the command's first process writes itself into. */
  procs: string[];
  /** Where `pids.events` is, if processes are bounded here. */
  pids: string | null;
  /** Where the memory bound is, if memory is bounded here. */
  memory: Hierarchy | null;
  /** Removes the folders, once the command and everything it started are gone. */
  dispose(): Promise<void>;
}

/**
 * Cgroups for one command with `pids.max` and the memory bound set (v2 `memory.max`, v1
 * `memory.limit_in_bytes`, swap included where the machine counts it), for each controller asked for
 * and available; null when none is.
 */
export async function commandCgroups(
  id: string,
  limits: { processes: number | null; memoryBytes: number | null },
): Promise<CommandCgroups | null> {
  const wanted: [Controller, Hierarchy][] = [];
  for (const [controller, limit] of [
    ['pids', limits.processes],
    ['memory', limits.memoryBytes],
  ] as const) {
    const where = limit === null ? null : hierarchy(controller);
    if (where !== null) wanted.push([controller, where]);
  }
  const made: string[] = [];
  const dispose = () => Promise.all(made.map(removeWhenEmpty)).then(() => {});
  const result: CommandCgroups = { procs: [], pids: null, memory: null, dispose };
  try {
    for (const [controller, where] of wanted) {
      const dir = path.join(where.dir, `massgen-${id}`);
      if (!made.includes(dir)) {
        await mkdir(dir);
        made.push(dir);
        result.procs.push(path.join(dir, 'cgroup.procs'));
      }
      if (controller === 'pids') {
        await writeFile(path.join(dir, 'pids.max'), String(limits.processes));
        result.pids = dir;
      } else {
        await setMemory(dir, where.version, limits.memoryBytes!);
        result.memory = { dir, version: where.version };
      }
    }
  } catch {
    await dispose();
    return null;
  }
  return result.procs.length === 0 ? null : result;
}

async function setMemory(dir: string, version: 1 | 2, bytes: number): Promise<void> {
  const optional = (file: string, value: string) =>
    writeFile(path.join(dir, file), value).catch(() => {
      // The machine has no swap accounting: memory alone is bounded, as intended.
    });
  if (version === 2) {
    await writeFile(path.join(dir, 'memory.max'), String(bytes));
    await optional('memory.swap.max', '0');
  } else {
    await writeFile(path.join(dir, 'memory.limit_in_bytes'), String(bytes));
    await optional('memory.memsw.limit_in_bytes', String(bytes));
  }
}

/** Whether the cgroup refused a fork because of `pids.max`. */
export async function forksRefused(dir: string): Promise<boolean> {
  return (await counter(path.join(dir, 'pids.events'), 'max')) > 0;
}

/** Whether the kernel ended a process of the cgroup for going past its memory bound. */
export async function outOfMemory(memory: Hierarchy): Promise<boolean> {
  const file = memory.version === 2 ? 'memory.events' : 'memory.oom_control';
  return (await counter(path.join(memory.dir, file), 'oom_kill')) > 0;
}

async function counter(file: string, name: string): Promise<number> {
  try {
    const text = await readFile(file, 'utf8');
    return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Processes leave a cgroup once reaped, a moment after they are killed — longer when the sandbox's
 * init was orphaned and the machine's init reaps it late: tried again later then.
 */
async function removeWhenEmpty(dir: string): Promise<void> {
  const remove = () =>
    rmdir(dir).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
    );
  for (let i = 0; i < 20; i++) {
    if (await remove()) return;
    await sleep(50);
  }
  setTimeout(() => void remove(), 10_000).unref();
}
