/**
 * How long a shutdown step may wait for Redis. ioredis queues commands while it reconnects and
 * retries forever, so without a bound a Ctrl-C or a SIGTERM with Redis gone would wait forever too.
 */
export const SHUTDOWN_WAIT_MS = 5_000;

/**
 * Settles with `promise`, or with `fallback` once `ms` have passed, whichever is first. The promise is
 * left to settle on its own; its rejection is ignored (the caller has moved on).
 */
export function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  // Not unref'd: when the promise waits on nothing alive (a dropped connection), this timer is what
  // lets the caller go on rather than the process end with the caller still waiting.
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([promise.catch(() => fallback), late]).finally(() => clearTimeout(timer));
}
