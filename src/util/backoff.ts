import pRetry, { AbortError } from 'p-retry';
import { sleep } from './abort.js';

/** Exponential backoff with full jitter, capped; a server-given delay is used as it is. */
export interface BackoffPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
}

export const defaultBackoff: BackoffPolicy = { baseDelayMs: 500, maxDelayMs: 30_000 };

/**
 * The longest `Retry-After` a run waits for. A provider asking for longer (an exhausted daily quota,
 * a misconfigured proxy) would hold the whole team hostage: that attempt fails instead, with the wait
 * in its message.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Delay before retry number `attempt` (1-based): full jitter, a uniform draw from
 * [0, min(maxDelayMs, baseDelayMs · 2^(attempt−1))), so callers that failed together spread out
 * instead of retrying in step. `random` is injectable so tests are deterministic. A `Retry-After`
 * from the server is used as it is, even above `maxDelayMs` — the server knows best; capping it is
 * {@link retryWithBackoff}'s job.
 */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.max(retryAfterMs, 0);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/** How {@link retryWithBackoff} retries errors of type `E`. */
export interface RetryOptions<E> {
  /** Retries after the first attempt (`backend.max_retries`). */
  retries: number;
  /** Whether `error` is worth another attempt; anything else fails at once, thrown as it is. */
  isRetryable: (error: unknown) => error is E;
  /** The wait the server asked for (`Retry-After`), if any. */
  retryAfterMs?: (error: E) => number | undefined;
  /**
   * What to fail with instead of waiting `retryAfterMs` when that is longer than `maxRetryAfterMs`:
   * a failed attempt that says how long the server asked to wait.
   */
  tooLongWait: (error: E, retryAfterMs: number) => unknown;
  /** Called before each wait (an event for the views). */
  onRetry?: (retry: { attempt: number; delayMs: number; error: E }) => void;
  policy?: BackoffPolicy;
  /** Default {@link MAX_RETRY_AFTER_MS}. */
  maxRetryAfterMs?: number;
  /** The run's random source (its clock's), for the jitter. Default `Math.random`. */
  random?: () => number;
  /** How to wait; rejects with the signal's reason when it aborts. Default: a timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Aborting it ends the retries at once (a wait too), with its reason. */
  signal?: AbortSignal;
}

/** A retryable failure on its way through p-retry (which wraps anything that is not an `Error`). */
class RetryableFailure<E> extends Error {
  constructor(readonly failure: E) {
    super('retryable failure');
  }
}

/**
 * Runs `attempt` (given its 1-based number) until it succeeds, retrying the errors `isRetryable`
 * accepts up to `retries` times with {@link backoffDelay}: full jitter, or the server's `Retry-After`
 * when it gives one — up to `maxRetryAfterMs` (60 s); a longer one is not waited for, the call fails
 * with `tooLongWait`'s error. When the retries are spent the last error is thrown as it is; an error
 * that is not retryable, and an abort, end it at once.
 *
 * p-retry counts the attempts and decides; the wait is ours. Its own wait is switched off
 * (`minTimeout: 0`): it draws from `Math.random` (its `randomize` multiplies by 1–2, not full jitter)
 * and sleeps on a global timer, while a run's jitter comes from the run's clock (seeded in tests) and
 * its wait from `sleep`. So the wait happens in `shouldRetry`, which p-retry awaits before the next
 * attempt.
 */
export async function retryWithBackoff<T, E>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: RetryOptions<E>,
): Promise<T> {
  const { signal } = options;
  const random = options.random ?? Math.random;
  const wait = options.sleep ?? sleep;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? MAX_RETRY_AFTER_MS;
  // What ends the retries at once goes around p-retry, so it is thrown exactly as it was.
  let stop = null as { error: unknown } | null;
  try {
    return await pRetry(
      async (attemptNumber) => {
        try {
          return await attempt(attemptNumber);
        } catch (error) {
          if (signal?.aborted) stop = { error: signal.reason };
          else if (!options.isRetryable(error)) stop = { error };
          else throw new RetryableFailure(error);
          throw new AbortError('not retried');
        }
      },
      {
        retries: options.retries,
        minTimeout: 0,
        factor: 1,
        randomize: false,
        shouldRetry: async ({ error, attemptNumber }) => {
          const failure = (error as RetryableFailure<E>).failure;
          const retryAfterMs = options.retryAfterMs?.(failure);
          if (retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs) {
            throw options.tooLongWait(failure, retryAfterMs);
          }
          const delayMs = backoffDelay(attemptNumber, options.policy ?? defaultBackoff, retryAfterMs, random);
          options.onRetry?.({ attempt: attemptNumber, delayMs, error: failure });
          await wait(delayMs, signal);
          return true;
        },
      },
    );
  } catch (error) {
    if (stop !== null) throw stop.error;
    throw error instanceof RetryableFailure ? (error as RetryableFailure<E>).failure : error;
  }
}
