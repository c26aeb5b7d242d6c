import PQueue from 'p-queue';

/** Every run slot and every queue place is taken: the request is refused with `429`. */
export class ServerBusyError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('the server is at its limit of runs in progress and waiting: retry later');
    this.name = 'ServerBusyError';
  }
}

/**
 * Admission control for runs: up to `maxConcurrent` at once, up to `maxQueue` more waiting in order,
 * and a fast refusal beyond that, with a `Retry-After` estimated from how long runs have been taking.
 * A request whose client goes away while it waits leaves the queue at once.
 */
export class RunSlots {
  private readonly queue: PQueue;
  /** A moving average of run durations, for `Retry-After`. */
  private averageMs = 5_000;

  constructor(
    readonly maxConcurrent: number,
    readonly maxQueue: number,
  ) {
    this.queue = new PQueue({ concurrency: maxConcurrent });
  }

  get running(): number {
    return this.queue.pending;
  }

  get waiting(): number {
    return this.queue.size;
  }

  /** True when every slot and every queue place is taken: a new request would be refused. */
  get full(): boolean {
    return this.queue.pending >= this.maxConcurrent && this.queue.size >= this.maxQueue;
  }

  /** Seconds to tell a refused client to wait (`Retry-After`), from how long runs have been taking. */
  get retryAfterSeconds(): number {
    return Math.min(60, Math.max(1, Math.ceil(this.averageMs / 1000)));
  }

  /**
   * Waits for a slot and resolves with the function that gives it back (call it once the run is over).
   * `signal` only takes the request out of the queue: once the slot is given, it stays taken until
   * released, whatever the signal does — a run whose client left is still ending (and writing its logs).
   * @throws {ServerBusyError} at once when every slot and queue place is taken.
   * @throws the signal's reason when it aborts while the request waits.
   */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (this.full) return Promise.reject(new ServerBusyError(this.retryAfterSeconds));
    // p-queue races a running task against the signal it was added with, and frees the slot when that
    // aborts: it gets a signal of its own, which stops following the request's once the slot is given.
    const waiting = new AbortController();
    const leave = () => waiting.abort(signal.reason);
    if (signal.aborted) leave();
    else signal.addEventListener('abort', leave, { once: true });
    return new Promise((resolve, reject) => {
      this.queue
        .add(
          () =>
            new Promise<void>((done) => {
              signal.removeEventListener('abort', leave);
              const started = Date.now();
              let released = false;
              resolve(() => {
                if (released) return;
                released = true;
                this.averageMs = 0.8 * this.averageMs + 0.2 * (Date.now() - started);
                done();
              });
            }),
          { signal: waiting.signal },
        )
        .catch((error: unknown) => {
          signal.removeEventListener('abort', leave);
          reject(error as Error);
        });
    });
  }
}
