import type { Clock } from '../util/clock.js';

/**
 * A clock that starts at `start` and only moves when told to (or by `stepMs` on every read), with a
 * seeded `random()`: hand it to `runMassGen({ clock })`, the session store or the log writer so that
 * tests never depend on today's date.
 */
export interface FixedClock extends Clock {
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void;
}

/** Makes a {@link FixedClock}. `start` is a date, an ISO string or epoch milliseconds. */
export function fixedClock(start: Date | string | number, options: { stepMs?: number } = {}): FixedClock {
  let now = typeof start === 'number' ? start : new Date(start).getTime();
  if (!Number.isFinite(now)) throw new Error(`fixedClock: invalid start ${String(start)}`);
  const stepMs = options.stepMs ?? 0;
  // mulberry32: small, seeded, good enough for jitter in tests.
  let seed = 0x9e3779b9;
  return {
    now() {
      const value = now;
      now += stepMs;
      return value;
    },
    random() {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
    advance(ms: number) {
      now += ms;
    },
  };
}
