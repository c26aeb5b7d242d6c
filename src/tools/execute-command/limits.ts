import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, readdir, readFile, rmdir, stat, statfs, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sleep } from '../../util/abort.js';

/** The most processes (threads included) a sandboxed command may run at once; Docker's limit too. */
export const DEFAULT_MAX_PROCESSES = 512;

/** What one command is held to, besides its time limit. */
export interface CommandLimits {
  /** Processes and threads at once (sandbox only). Null: no process limit (local mode). */
  processes: number | null;
  /** Bytes it may add to the disks holding `writable`. */
  writeBytes: number;
  /** Where it can write on disk (the workspace, write context paths). */
  writable: readonly string[];
}

/** What {@link commandLimiter} sets up for one command. */
export interface CommandLimiter {
  /** The program to start instead of `file args`: placed in the command's pids cgroup first, if it has one. */
  wrap(file: string, args: string[]): { file: string; args: string[] };
  /** Why the command must be stopped now, or null; `pid` is the started program. */
  check(pid: number): Promise<string | null>;
  /** Removes the cgroup, once the command and everything it started are gone. */
  dispose(): Promise<void>;
}

const formatMiB = (bytes: number) =>
  bytes >= 1024 ** 3 && bytes % 1024 ** 3 === 0
    ? `${bytes / 1024 ** 3} GiB`
    : `${Math.round((bytes / 1024 ** 2) * 10) / 10} MiB`;

/**
 * The limits of one command, enforced by the kernel where it can and watched from here:
 *
 * - Processes: RLIMIT_NPROC (set inside the sandbox, by `prlimit`) counts the tasks of one real user
 *   in one user namespace — each sandbox has its own, so only the command's processes count. The
 *   kernel exempts root from it, so when massgen runs as root the command goes into a pids cgroup of
 *   its own instead (`pids.max`), where the machine lets root create one. Either way a fork bomb only
 *   gets `EAGAIN` (and bash retries for half a minute), so `check` stops the command as soon as the
 *   bound is reached: the cgroup reports refused forks (`pids.events`), else its tasks are counted.
 * - Bytes written: RLIMIT_FSIZE bounds each file; the total is watched on the disks themselves
 *   (`statfs`), so files deleted while still open and writes through any path count too. Another
 *   program filling the same disk at the same time counts as well: the bound errs on the safe side.
 */
export async function commandLimiter(id: string, limits: CommandLimits): Promise<CommandLimiter> {
  const cgroup = limits.processes === null ? null : await pidsCgroup(id, limits.processes);
  const disks = await diskUsage(limits.writable);
  // Counting tasks reads every process's stat: under RLIMIT_NPROC (the kernel holds the bound) a
  // third of the checks is enough; without any kernel bound (root, no cgroup) every check counts.
  const scanEvery = process.getuid?.() === 0 ? 1 : 3;
  let checks = 0;
  return {
    wrap: (file, args) =>
      cgroup === null
        ? { file, args }
        : // The shell joins the cgroup before anything else runs, so every process inherits it.
          {
            file: '/bin/sh',
            args: ['-c', 'echo $$ > "$0" && exec "$@"', path.join(cgroup, 'cgroup.procs'), file, ...args],
          },
    async check(pid) {
      const grown = (await diskUsage(limits.writable)).reduce(
        (sum, now, i) => sum + Math.max(0, now.used - (disks[i]?.used ?? now.used)),
        0,
      );
      if (grown > limits.writeBytes) {
        return `the command wrote more than the ${formatMiB(limits.writeBytes)} limit (command_max_file_size_mb): the disk holding its workspace grew by ${formatMiB(grown)}`;
      }
      if (limits.processes === null || (cgroup === null && ++checks % scanEvery !== 0)) return null;
      const reached =
        cgroup !== null ? await forksRefused(cgroup) : (await tasksBelow(pid)) >= limits.processes - 1;
      return reached
        ? `the command reached the limit of ${limits.processes} processes (command_max_processes); a program starting processes without end (a fork bomb?) is stopped at it`
        : null;
    },
    async dispose() {
      if (cgroup === null) return;
      // Processes leave the cgroup once reaped, a moment after they are killed — longer when the
      // sandbox's init was orphaned and the machine's init reaps it late: tried again later then.
      const remove = () =>
        rmdir(cgroup).then(
          () => true,
          (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
        );
      for (let i = 0; i < 20; i++) {
        if (await remove()) return;
        await sleep(50);
      }
      setTimeout(() => void remove(), 10_000).unref();
    },
  };
}

/** Used bytes of each distinct disk holding one of `dirs` (same order on every call). */
async function diskUsage(dirs: readonly string[]): Promise<{ dev: number; used: number }[]> {
  const seen = new Set<number>();
  const result: { dev: number; used: number }[] = [];
  for (const dir of dirs) {
    try {
      const { dev } = await stat(dir);
      if (seen.has(dev)) continue;
      seen.add(dev);
      const fs = await statfs(dir);
      result.push({ dev, used: (fs.blocks - fs.bfree) * fs.bsize });
    } catch {
      // Gone or unreadable: nothing to measure there.
    }
  }
  return result;
}

/** Whether the cgroup refused a fork because of `pids.max`. */
async function forksRefused(cgroup: string): Promise<boolean> {
  try {
    const events = await readFile(path.join(cgroup, 'pids.events'), 'utf8');
    return Number(/^max (\d+)/m.exec(events)?.[1] ?? 0) > 0;
  } catch {
    return false;
  }
}

/** The tasks (threads) of `pid`'s descendants, from /proc. */
async function tasksBelow(pid: number): Promise<number> {
  const children = new Map<number, { pid: number; threads: number }[]>();
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return 0;
  }
  await Promise.all(
    entries.map(async (entry) => {
      if (!/^\d+$/.test(entry)) return;
      try {
        const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
        // `pid (comm) state ppid …`, num_threads 20th; comm may hold spaces and parentheses.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const ppid = Number(fields[1]);
        const list = children.get(ppid) ?? [];
        list.push({ pid: Number(entry), threads: Number(fields[17]) || 1 });
        children.set(ppid, list);
      } catch {
        // Gone meanwhile.
      }
    }),
  );
  let total = 0;
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      total += child.threads;
      queue.push(child.pid);
    }
  }
  return total;
}

let hierarchy: string | null | undefined;

/**
 * The pids cgroup hierarchy root may create cgroups in (v1's `pids`, or v2 with the pids controller
 * on for its children), tried once; null: not root, or not here (a container's read-only cgroupfs).
 */
function pidsHierarchy(): string | null {
  if (hierarchy !== undefined) return hierarchy;
  hierarchy = null;
  if (process.getuid?.() !== 0) return hierarchy;
  const v1 = '/sys/fs/cgroup/pids';
  const v2 = '/sys/fs/cgroup';
  try {
    let root = v1;
    if (!existsSync(path.join(v1, 'cgroup.procs'))) {
      if (!readFileSync(path.join(v2, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('pids'))
        return hierarchy;
      const control = path.join(v2, 'cgroup.subtree_control');
      if (!readFileSync(control, 'utf8').split(/\s+/).includes('pids')) writeFileSync(control, '+pids');
      root = v2;
    }
    const trial = path.join(root, `massgen-probe-${process.pid}`);
    mkdirSync(trial);
    rmdirSync(trial);
    hierarchy = root;
    removeStale(root);
  } catch {
    // Not allowed here.
  }
  return hierarchy;
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

/**
 * What bounds a sandboxed command's processes on this machine: RLIMIT_NPROC (any user but root), a
 * pids cgroup (root, where it may create one), or only {@link CommandLimiter.check} counting them
 * (root without cgroups: a fork bomb runs until the next check, a tenth of a second).
 */
export function processBound(): 'rlimit' | 'cgroup' | 'watch' {
  if (process.getuid?.() !== 0) return 'rlimit';
  return pidsHierarchy() === null ? 'watch' : 'cgroup';
}

/** A pids cgroup for one command with `pids.max` set, or null where root cannot make one. */
async function pidsCgroup(id: string, max: number): Promise<string | null> {
  const root = pidsHierarchy();
  if (root === null) return null;
  const dir = path.join(root, `massgen-${id}`);
  try {
    await mkdir(dir);
    await writeFile(path.join(dir, 'pids.max'), String(max));
    return dir;
  } catch {
    await rmdir(dir).catch(() => {});
    return null;
  }
}
