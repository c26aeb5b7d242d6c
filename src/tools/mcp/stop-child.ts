/** How long a stdio server gets to exit after its input ends, as the MCP spec asks clients to allow. */
const STDIN_GRACE_MS = 500;
/** How long after SIGTERM before SIGKILL. */
const TERM_GRACE_MS = 2_000;
const KILL_WAIT_MS = 1_000;

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // ESRCH: it exited between our check and the signal.
  }
}

/**
 * Makes sure a stdio server process is gone once its input has been closed: waits briefly for it to
 * exit on its own, then SIGTERM, then SIGKILL. `waitForExit(ms)` resolves true once the child exited.
 */
export async function stopChild(pid: number, waitForExit: (ms: number) => Promise<boolean>): Promise<void> {
  if (await waitForExit(STDIN_GRACE_MS)) return;
  signal(pid, 'SIGTERM');
  if (await waitForExit(TERM_GRACE_MS)) return;
  signal(pid, 'SIGKILL');
  await waitForExit(KILL_WAIT_MS);
}
