import { describe, expect, it } from 'vitest';
import { backoffDelay, defaultBackoff, MAX_RETRY_AFTER_MS, retryWithBackoff } from './backoff.js';

/** A failure worth retrying, with the server's wait if it gave one. */
class Flaky extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

const isFlaky = (error: unknown): error is Flaky => error instanceof Flaky;

/** A random source that replays `values`. */
const replay = (...values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length] ?? 0;
};

/** Runs `attempts` in turn (each throws or returns) under retryWithBackoff; records waits and retries. */
function harness(
  outcomes: (() => string)[],
  options: { retries?: number; random?: () => number; signal?: AbortSignal } = {},
) {
  const slept: number[] = [];
  const retries: { attempt: number; delayMs: number; message: string }[] = [];
  let calls = 0;
  const result = retryWithBackoff(
    async (attemptNumber) => {
      calls++;
      expect(attemptNumber).toBe(calls);
      const outcome = outcomes[attemptNumber - 1];
      if (!outcome) throw new Error('no more outcomes');
      return outcome();
    },
    {
      retries: options.retries ?? 3,
      isRetryable: isFlaky,
      retryAfterMs: (error) => error.retryAfterMs,
      tooLongWait: (error, ms) => new Error(`${error.message} — asks to wait ${ms / 1000}s`),
      onRetry: ({ attempt, delayMs, error }) => retries.push({ attempt, delayMs, message: error.message }),
      random: options.random ?? replay(0.5),
      sleep: async (ms, signal) => {
        slept.push(ms);
        signal?.throwIfAborted();
      },
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  return { result, slept, retries, calls: () => calls };
}

const fail = (message: string, retryAfterMs?: number) => (): string => {
  throw new Flaky(message, retryAfterMs);
};

describe('backoffDelay', () => {
  it('is full jitter: a uniform draw from zero up to the exponential ceiling', () => {
    const policy = { baseDelayMs: 500, maxDelayMs: 30_000 };
    expect(backoffDelay(1, policy, undefined, () => 0)).toBe(0);
    expect(backoffDelay(1, policy, undefined, () => 0.5)).toBe(250);
    expect(backoffDelay(1, policy, undefined, () => 0.999)).toBe(499);
    expect(backoffDelay(2, policy, undefined, () => 0.5)).toBe(500);
    expect(backoffDelay(3, policy, undefined, () => 0.25)).toBe(500);
    // Capped: attempt 10 would be 256 s.
    expect(backoffDelay(10, policy, undefined, () => 0.5)).toBe(15_000);
    expect(backoffDelay(100, policy, undefined, () => 0.999_999)).toBeLessThan(30_000);
  });

  it('uses the server’s Retry-After as it is, whatever the draw', () => {
    expect(backoffDelay(1, defaultBackoff, 0, () => 0.9)).toBe(0);
    expect(backoffDelay(1, defaultBackoff, 45_000, () => 0.9)).toBe(45_000);
    expect(backoffDelay(1, defaultBackoff, -5, () => 0.9)).toBe(0);
  });
});

describe('retryWithBackoff (p-retry, waits from the injected random and sleep)', () => {
  it('retries retryable failures with full-jitter waits and returns the first success', async () => {
    const run = harness([fail('a'), fail('b'), fail('c'), () => 'ok'], { random: replay(0.5, 0, 0.999) });
    await expect(run.result).resolves.toBe('ok');
    // Ceilings 500, 1000, 2000 ms; draws 0.5, 0, 0.999.
    expect(run.slept).toEqual([250, 0, 1998]);
    expect(run.retries).toEqual([
      { attempt: 1, delayMs: 250, message: 'a' },
      { attempt: 2, delayMs: 0, message: 'b' },
      { attempt: 3, delayMs: 1998, message: 'c' },
    ]);
  });

  it('honours Retry-After up to the cap', async () => {
    const run = harness([fail('slow down', 1_500), fail('slow down', MAX_RETRY_AFTER_MS), () => 'ok']);
    await expect(run.result).resolves.toBe('ok');
    expect(run.slept).toEqual([1_500, 60_000]);
  });

  it("a Retry-After above 60 s is a failed attempt with the server's wait in the message, not a long wait", async () => {
    const run = harness([fail('quota exhausted', 3_600_000), () => 'never']);
    await expect(run.result).rejects.toThrow('quota exhausted — asks to wait 3600s');
    expect(run.slept).toEqual([]);
    expect(run.retries).toEqual([]);
    expect(run.calls()).toBe(1);
  });

  it('when the retries are spent, the last failure is thrown as it is', async () => {
    const last = new Flaky('boom 3');
    const run = harness(
      [
        fail('boom 1'),
        fail('boom 2'),
        () => {
          throw last;
        },
      ],
      { retries: 2 },
    );
    await expect(run.result).rejects.toBe(last);
    expect(run.retries.map((r) => r.attempt)).toEqual([1, 2]);
    expect(run.calls()).toBe(3);
  });

  it('retries: 0 tries once', async () => {
    const run = harness([fail('once')], { retries: 0 });
    await expect(run.result).rejects.toThrow('once');
    expect(run.calls()).toBe(1);
    expect(run.slept).toEqual([]);
  });

  it('fails at once, with the very value thrown, on anything not retryable', async () => {
    const fatal = new TypeError('bad request');
    const run = harness([
      () => {
        throw fatal;
      },
    ]);
    await expect(run.result).rejects.toBe(fatal);
    expect(run.calls()).toBe(1);

    const odd = harness([
      () => {
        throw 'a string, not an Error';
      },
    ]);
    await expect(odd.result).rejects.toBe('a string, not an Error');
  });

  it('an abort ends it at once with the signal’s reason: during an attempt or during a wait', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled');
    const during = harness(
      [
        () => {
          controller.abort(reason);
          throw new Flaky('cut off');
        },
        () => 'never',
      ],
      { signal: controller.signal },
    );
    await expect(during.result).rejects.toBe(reason);
    expect(during.retries).toEqual([]);

    const waiting = new AbortController();
    const inWait = retryWithBackoff(
      async () => {
        throw new Flaky('x');
      },
      {
        retries: 3,
        isRetryable: isFlaky,
        tooLongWait: () => new Error('unused'),
        random: () => 0.5,
        sleep: async () => {
          waiting.abort(reason);
          throw reason;
        },
        signal: waiting.signal,
      },
    );
    await expect(inWait).rejects.toBe(reason);
  });
});
