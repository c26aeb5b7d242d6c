import { sleep } from './abort.js';

export interface RateLimiterOptions {
  requestsPerMinute?: number;
  concurrent?: number;
  /** Injectable for tests, together with `sleep`. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
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
 */
export class RateLimiter implements CallLimiter {
  private readonly starts: number[] = [];
  private inFlight = 0;
  private tail: Promise<void> = Promise.resolve();
  private readonly freed = new Set<() => void>();
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(private readonly options: RateLimiterOptions) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? sleep;
  }

  /** Waits for a slot; resolves with the function that gives it back. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    // Chaining keeps waiters in order: each waits for the one before it to get its slot.
    const turn = this.tail.then(() => this.waitForSlot(signal));
    this.tail = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  private async waitForSlot(signal?: AbortSignal): Promise<() => void> {
    for (;;) {
      signal?.throwIfAborted();
      const { requestsPerMinute, concurrent } = this.options;
      while (this.starts.length > 0 && (this.starts[0] as number) <= this.now() - WINDOW_MS)
        this.starts.shift();
      if (concurrent !== undefined && this.inFlight >= concurrent) {
        await new Promise<void>((resolve, reject) => {
          const wake = () => {
            this.freed.delete(wake);
            signal?.removeEventListener('abort', onAbort);
            resolve();
          };
          const onAbort = () => {
            this.freed.delete(wake);
            reject(signal?.reason);
          };
          this.freed.add(wake);
          signal?.addEventListener('abort', onAbort, { once: true });
        });
        continue;
      }
      if (requestsPerMinute !== undefined && this.starts.length >= requestsPerMinute) {
        await this.sleep((this.starts[0] as number) + WINDOW_MS - this.now(), signal);
        continue;
      }
      this.starts.push(this.now());
      this.inFlight++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        this.inFlight--;
        for (const wake of [...this.freed]) wake();
      };
    }
  }
}
