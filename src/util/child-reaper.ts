/**
 * Child processes that must not outlive massgen. A process that exits without the usual shutdown (a
 * second Ctrl-C, a crash, `process.exit`) still runs its `exit` handlers: this one SIGKILLs whatever
 * is still registered, synchronously, so no server or command is left behind as an orphan.
 */
const live = new Set<number>();
let installed = false;

function killAll(): void {
  for (const pid of live) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ESRCH: already gone.
    }
  }
  live.clear();
}

/** Registers a child's pid; call the returned function once the child has exited. */
export function trackChildProcess(pid: number): () => void {
  if (!installed) {
    installed = true;
    process.on('exit', killAll);
  }
  live.add(pid);
  return () => {
    live.delete(pid);
  };
}
