/**
 * Timers on a virtual clock, for tests where a timeout races scripted delays (an orchestrator timeout
 * of 150 ms against answers 10 ms apart): the order is then the one the test wrote, not whatever a busy
 * machine makes of the budget. Only timers move; `Date` stays real.
 */
import { afterEach, beforeEach, vi } from 'vitest';

/** Every test of the file (or `describe` block) runs with its timers on the virtual clock. */
export function useVirtualTimers(): void {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

/**
 * Moves the virtual clock 10 ms at a time (the promise callbacks due in between run first) until
 * `work` settles; throws when it has not after `limitMs` of virtual time.
 */
export async function onVirtualClock<T>(work: Promise<T>, limitMs = 600_000): Promise<T> {
  let settled = false;
  const watched = work.finally(() => (settled = true));
  for (let elapsed = 0; !settled; elapsed += 10) {
    if (elapsed > limitMs) throw new Error(`still running after ${limitMs} ms of virtual time`);
    await vi.advanceTimersByTimeAsync(10);
  }
  return watched;
}
