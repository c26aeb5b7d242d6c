import { readdir, readFile, stat, statfs } from 'node:fs/promises';
import { cgroupAvailable, commandCgroups, forksRefused, outOfMemory } from './cgroups.js';

/** The most processes (threads included) a sandboxed command may run at once; Docker's limit too. */
export const DEFAULT_MAX_PROCESSES = 512;

/** The most memory a sandboxed command may use (`sandbox.memory`): 2 GiB, as Docker's default in massgen. */
export const DEFAULT_MAX_MEMORY_BYTES = 2 * 1024 ** 3;

/** What one command is held to, besides its time limit. */
export interface CommandLimits {
  /** Processes and threads at once (sandbox only). Null: no process limit (local mode). */
  processes: number | null;
  /** Bytes of memory (sandbox only). Null: no memory limit (local mode). */
  memoryBytes: number | null;
  /** Bytes it may add to the disks holding `writable`. */
  writeBytes: number;
  /** Where it can write on disk (the workspace, write context paths). */
  writable: readonly string[];
}

/** What {@link commandLimiter} sets up for one command. */
export interface CommandLimiter {
  /** The program to start instead of `file args`: placed in the command's cgroups first, if it has any. */
  wrap(file: string, args: string[]): { file: string; args: string[] };
  /**
   * `prlimit` options for the limits no cgroup holds: the memory bound as each process's address space
   * (RLIMIT_AS) where the command has no memory cgroup.
   */
  rlimits: string[];
  /** Why the command must be stopped now, or null; `pid` is the started program. */
  check(pid: number): Promise<string | null>;
  /** Removes the cgroups, once the command and everything it started are gone. */
  dispose(): Promise<void>;
}

const formatMiB = (bytes: number) =>
  bytes >= 1024 ** 3 && bytes % 1024 ** 3 === 0
    ? `${bytes / 1024 ** 3} GiB`
    : `${Math.round((bytes / 1024 ** 2) * 10) / 10} MiB`;

/** What a command that went past its memory cgroup is told. */
export const memoryReason = (bytes: number) =>
  `the command ran out of memory: it may use at most ${formatMiB(bytes)} (sandbox.memory), and the kernel ended what went past it`;

/**
 * The limits of one command, enforced by the kernel where it can and watched from here:
 *
 * - Processes: RLIMIT_NPROC (set inside the sandbox, by `prlimit`) counts the tasks of one real user
 *   in one user namespace — each sandbox has its own, so only the command's processes count. The
 *   kernel exempts root from it, so when massgen runs as root the command goes into a pids cgroup of
 *   its own instead (`pids.max`), where the machine lets root create one. Either way a fork bomb only
 *   gets `EAGAIN` (and bash retries for half a minute), so `check` stops the command as soon as the
 *   bound is reached: the cgroup reports refused forks (`pids.events`), else its tasks are counted.
 * - Memory: a memory cgroup of its own where root may make one (everything the command starts counts
 *   together, and the kernel ends a process that goes past it: `check` reports it); else RLIMIT_AS on
 *   each of its processes (an allocation past it fails).
 * - Bytes written: RLIMIT_FSIZE bounds each file; the total is watched on the disks themselves
 *   (`statfs`), so files deleted while still open and writes through any path count too. Another
 *   program filling the same disk at the same time counts as well: the bound errs on the safe side.
 */
export async function commandLimiter(id: string, limits: CommandLimits): Promise<CommandLimiter> {
  const cgroups = await commandCgroups(id, { processes: limits.processes, memoryBytes: limits.memoryBytes });
  const disks = await diskUsage(limits.writable);
  // Counting tasks reads every process's stat: under RLIMIT_NPROC (the kernel holds the bound) a
  // third of the checks is enough; without any kernel bound (root, no cgroup) every check counts.
  const scanEvery = process.getuid?.() === 0 ? 1 : 3;
  let checks = 0;
  const pids = cgroups?.pids ?? null;
  const memory = cgroups?.memory ?? null;
  return {
    wrap: (file, args) =>
      cgroups === null
        ? { file, args }
        : // The shell joins the cgroups before anything else runs, so every process inherits them.
          {
            file: '/bin/sh',
            args: [
              '-c',
              'n=$0; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n - 1)); done; exec "$@"',
              String(cgroups.procs.length),
              ...cgroups.procs,
              file,
              ...args,
            ],
          },
    rlimits: limits.memoryBytes !== null && memory === null ? [`--as=${limits.memoryBytes}`] : [],
    async check(pid) {
      const grown = (await diskUsage(limits.writable)).reduce(
        (sum, now, i) => sum + Math.max(0, now.used - (disks[i]?.used ?? now.used)),
        0,
      );
      if (grown > limits.writeBytes) {
        return `the command wrote more than the ${formatMiB(limits.writeBytes)} limit (command_max_file_size_mb): the disk holding its workspace grew by ${formatMiB(grown)}`;
      }
      if (memory !== null && (await outOfMemory(memory))) return memoryReason(limits.memoryBytes!);
      if (limits.processes === null || (pids === null && ++checks % scanEvery !== 0)) return null;
      const reached =
        pids !== null ? await forksRefused(pids) : (await tasksBelow(pid)) >= limits.processes - 1;
      return reached
        ? `the command reached the limit of ${limits.processes} processes (command_max_processes); a program starting processes without end (a fork bomb?) is stopped at it`
        : null;
    },
    dispose: async () => cgroups?.dispose(),
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

/**
 * What bounds a sandboxed command's processes on this machine: RLIMIT_NPROC (any user but root), a
 * pids cgroup (root, where it may create one), or only {@link CommandLimiter.check} counting them
 * (root without cgroups: a fork bomb runs until the next check, a tenth of a second).
 */
export function processBound(): 'rlimit' | 'cgroup' | 'watch' {
  if (process.getuid?.() !== 0) return 'rlimit';
  return cgroupAvailable('pids') ? 'cgroup' : 'watch';
}

/**
 * What bounds a sandboxed command's memory on this machine: a memory cgroup (root, where it may create
 * one: everything the command runs counts together) or RLIMIT_AS (each process's address space).
 */
export function memoryBound(): 'cgroup' | 'rlimit' {
  return cgroupAvailable('memory') ? 'cgroup' : 'rlimit';
}
