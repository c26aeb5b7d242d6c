import type PQueue from 'p-queue';

export interface RateLimiterOptions {
  requestsPerMinute?: number;
  concurrent?: number;
}

const WINDOW_MS = 60_000;

/**
 * What a rate-limited backend needs: a slot before each model call, given back when the call ends.
 * {@link RateLimiter} is the in-process one; a queue worker uses one shared through Redis.
 */
export interface CallLimiter {
  /** Waits for a slot; resolves with the function that gives it back. Rejects when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<() => void>;
}

/** Makes the limiter for one model from the config's `rate_limits` entry (the two limits it names). */
export type CallLimiterFactory = (
  model: string,
  limits: { requestsPerMinute?: number; concurrent?: number },
) => CallLimiter;

/**
 * Client-side limits shared by every caller of one model: at most `requestsPerMinute` starts in any
 * sliding minute and at most `concurrent` in flight. Waiters are served in arrival order; waiting is
 * abortable.
 *
 * A p-queue does the counting: `concurrency` for the calls in flight, `intervalCap` per `interval` in
 * strict mode (a sliding window of start times, not fixed minutes) for the starts. Each slot is a
 * queue task that runs until the caller gives the slot back. Its clock is the real one (`Date.now`
 * and timers): tests drive it with fake timers.
 */
export class RateLimiter implements CallLimiter {
  private queue: Promise<PQueue> | null = null;

  constructor(private readonly options: RateLimiterOptions) {}

  /**
   * The queue, made on the first call: p-queue is imported only by runs with `rate_limits` (it is start-up
   * time for every run otherwise). Every caller chains on the same promise, so arrival order is kept.
   */
  private queued(): Promise<PQueue> {
    const { options } = this;
    this.queue ??= import('p-queue').then(
      ({ default: Queue }) =>
        new Queue({
          ...(options.concurrent === undefined ? {} : { concurrency: options.concurrent }),
          ...(options.requestsPerMinute === undefined
            ? {}
            : { intervalCap: options.requestsPerMinute, interval: WINDOW_MS, strict: true }),
        }),
    );
    return this.queue;
  }

  /** Waits for a slot; resolves with the function that gives it back (once; later calls do nothing). */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) throw signal.reason as Error;
    const queue = await this.queued();
    if (signal?.aborted) throw signal.reason as Error;
    // p-queue's signal also races a running task and frees its slot on abort, while the caller still
    // holds it until its call has wound down: the signal given to p-queue covers the wait only.
    const waiting = new AbortController();
    const onAbort = (): void => waiting.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    return new Promise((resolve, reject) => {
      queue
        .add(
          () => {
            signal?.removeEventListener('abort', onAbort);
            return new Promise<void>((release) => {
              let released = false;
              resolve(() => {
                if (released) return;
                released = true;
                release();
              });
            });
          },
          { signal: waiting.signal },
        )
        .catch((error: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error as Error);
        });
    });
  }
}
