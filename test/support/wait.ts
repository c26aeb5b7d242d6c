/**
 * The suite's one bounded wait. A test awaits an event, a promise or a file wherever it can; where it
 * must poll (a count on a fake server, a terminal's screen, a file another process writes) it polls
 * through {@link waitUntil}, whose budget a busy two-core machine does not exhaust and whose failure
 * says what was awaited and what was seen instead.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The default budget of a wait. Generous on purpose: it only runs out when something is wrong, and
 * then the message says what. It stays well inside vitest's testTimeout (vitest.config.ts), so a wait
 * fails with its own message rather than the test's.
 */
export const WAIT_MS = 60_000;

export interface WaitOptions {
  /**
   * Give up after this long (default {@link WAIT_MS}). A smaller budget is raised to it: a number picked
   * on an idle machine is no bound on a busy one, and only a failing wait ever uses it up.
   */
  timeoutMs?: number;
  /** What the test can see instead (the output so far, the screen, the files): for the failure message. */
  seen?: () => string | Promise<string>;
  /**
   * Settles when waiting longer is pointless (the process that should act has exited), with why:
   * the wait then fails at once instead of at its budget.
   */
  stop?: Promise<string>;
  /** How often the condition is checked (default 25 ms). */
  intervalMs?: number;
}

/**
 * Checks `condition` until it holds. Throws, naming `what` (by default the condition's own source) and
 * what `seen` reports, when the budget runs out or `stop` settles first.
 */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string = sourceOf(condition),
  { timeoutMs: asked = WAIT_MS, seen, stop, intervalMs = 25 }: WaitOptions = {},
): Promise<void> {
  const timeoutMs = Math.max(asked, WAIT_MS);
  // Monotonic: the suite also runs with the wall clock moved (faketime).
  const started = performance.now();
  let stopped: string | undefined;
  const stopping = stop?.then(
    (why) => (stopped = why),
    (error: unknown) => (stopped = String(error)),
  );
  for (;;) {
    if (await condition()) return;
    const elapsed = Math.round(performance.now() - started);
    if (stopped !== undefined || elapsed > timeoutMs) {
      const head =
        stopped === undefined
          ? `timed out after ${timeoutMs} ms waiting for ${what}`
          : `gave up waiting for ${what} after ${elapsed} ms: ${stopped}`;
      throw new Error(seen ? `${head}\nwhat was seen:\n${await seen()}` : head);
    }
    await Promise.race([sleep(intervalMs), ...(stopping ? [stopping] : [])]);
  }
}

/** `() => answers.length === 2` → `answers.length === 2`: a condition named by its code. */
function sourceOf(condition: () => unknown): string {
  return condition
    .toString()
    .replace(/^(async\s*)?\(\)\s*=>\s*/, '')
    .replace(/\s+/g, ' ');
}

/** The last `chars` characters of `text`, marked when cut: for failure messages. */
export function tail(text: string, chars = 2_000): string {
  return text.length <= chars ? text : `…${text.slice(-chars)}`;
}

/** vitest's `expect.poll` options with the suite's budget: `expect.poll(fn, POLL).toBe(…)`. */
export const POLL = { timeout: WAIT_MS, interval: 50 } as const;
