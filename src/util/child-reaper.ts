import { readdirSync, readFileSync } from 'node:fs';

/**
 * Child processes that must not outlive massgen. A process that exits without the usual shutdown (a
 * second Ctrl-C, a crash, `process.exit`) still runs its `exit` handlers: this one SIGKILLs whatever
 * is still registered, synchronously, so no server or command is left behind as an orphan — including
 * a command's descendants that left its process group (setsid, double forks), found by the marker in
 * their environment.
 */
const live = new Set<number>();
const trees = new Map<number, string | null>();
let installed = false;

function kill(target: number): void {
  try {
    process.kill(target, 'SIGKILL');
  } catch {
    // ESRCH: already gone.
  }
}

/** Pids (other than ours) whose environment holds one of `markers`; empty without /proc. */
function marked(markers: readonly string[]): number[] {
  if (markers.length === 0) return [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (markers.some((m) => environ.includes(m))) found.push(Number(entry));
    } catch {
      // Gone, or another user's process: not ours.
    }
  }
  return found;
}

/** Synchronous clean-ups of things on disk (a run's git worktrees), run after the processes are gone. */
const cleanups = new Set<() => void>();

function killAll(): void {
  for (const pid of live) kill(pid);
  live.clear();
  for (const pgid of trees.keys()) kill(-pgid);
  for (const pid of marked([...trees.values()].filter((m): m is string => m !== null))) kill(pid);
  trees.clear();
  for (const cleanup of [...cleanups]) {
    try {
      cleanup();
    } catch {
      // Exiting anyway: the next clean-up still runs.
    }
  }
  cleanups.clear();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', killAll);
}

/** Registers a child's pid; call the returned function once the child has exited. */
export function trackChildProcess(pid: number): () => void {
  install();
  live.add(pid);
  return () => {
    live.delete(pid);
  };
}

/**
 * Registers a command's process tree: its process group and every process carrying `marker`
 * (`NAME=value`) in its environment. Call the returned function once the tree has been stopped.
 */
export function trackProcessTree(pgid: number, marker: string | null): () => void {
  install();
  trees.set(pgid, marker);
  return () => {
    trees.delete(pgid);
  };
}

/**
 * Registers a synchronous clean-up for a process that exits without the usual shutdown (a second
 * Ctrl-C, a crash, `process.exit`): e.g. removing a run's git worktrees and branches. Call the returned
 * function once the clean-up has been done the ordinary way.
 */
export function registerExitCleanup(cleanup: () => void): () => void {
  install();
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
  };
}
