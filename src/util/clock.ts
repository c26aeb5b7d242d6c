/**
 * Time and randomness, injected by whoever starts a run so that everything that stamps a time (the
 * engine, the log writer, the session store) can be driven by a fixed clock in tests.
 */
export interface Clock {
  /** Milliseconds since the epoch, like `Date.now()`. */
  now(): number;
  /** A number in [0, 1), like `Math.random()`. */
  random(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now(), random: () => Math.random() };
