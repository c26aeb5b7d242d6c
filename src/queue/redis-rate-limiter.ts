import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { sleep } from '../util/abort.js';
import type { CallLimiter, CallLimiterFactory } from '../util/rate-limiter.js';

/**
 * The config's `rate_limits` shared by every worker on one Redis: the same two limits as the
 * in-process `RateLimiter` (requests started per sliding minute, requests in flight), kept in Redis so
 * they hold for a provider account however many machines call it.
 *
 * Per model, two sorted sets: start times of the last minute, and leases of calls in flight (scored by
 * their expiry, renewed while the call runs, so a worker that dies frees its slots when the lease
 * runs out). One Lua script checks both limits and takes a slot atomically, on Redis's clock. Waiters
 * retry when a slot is given back (pub/sub) or when the script says one frees up, whichever comes first.
 */
const ACQUIRE = `
local starts, leases = KEYS[1], KEYS[2]
local rpm, concurrent, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local lease, ttl = ARGV[4], tonumber(ARGV[5])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if concurrent > 0 then
  redis.call('ZREMRANGEBYSCORE', leases, '-inf', now)
  if redis.call('ZCARD', leases) >= concurrent then
    local first = redis.call('ZRANGE', leases, 0, 0, 'WITHSCORES')
    return {0, math.max(1, tonumber(first[2]) - now)}
  end
end
if rpm > 0 then
  redis.call('ZREMRANGEBYSCORE', starts, '-inf', now - window)
  if redis.call('ZCARD', starts) >= rpm then
    local oldest = redis.call('ZRANGE', starts, 0, 0, 'WITHSCORES')
    return {0, math.max(1, tonumber(oldest[2]) + window - now)}
  end
  redis.call('ZADD', starts, now, lease)
  redis.call('PEXPIRE', starts, window + 1000)
end
if concurrent > 0 then
  redis.call('ZADD', leases, now + ttl, lease)
  redis.call('PEXPIRE', leases, ttl * 2)
end
return {1, 0}
`;

/** How long a lease lasts without renewal: a dead worker's slots come back after this. */
const LEASE_MS = 60_000;
/** Waiters look again at least this often, in case a release notice was missed. */
const MAX_WAIT_MS = 1_000;

export interface RedisLimiterOptions {
  /** Commands (and the acquire script). */
  redis: Redis;
  /** A connection of its own for release notices (it enters subscriber mode). */
  subscriber: Redis;
  /** Key prefix; limits are per model name under it. Default `massgen:ratelimit`. */
  prefix?: string;
  /** The requests-per-minute window, in ms (tests shorten it). Default 60 000. */
  windowMs?: number;
}

/**
 * A {@link CallLimiterFactory} whose limiters live in Redis. `close()` stops listening for releases.
 */
export function redisLimiters(options: RedisLimiterOptions): CallLimiterFactory & { close(): Promise<void> } {
  const prefix = options.prefix ?? 'massgen:ratelimit';
  const channel = `${prefix}:released`;
  const windowMs = options.windowMs ?? 60_000;
  const wakers = new Set<() => void>();
  let subscribed: Promise<unknown> | null = null;
  const subscribe = () =>
    (subscribed ??= options.subscriber.subscribe(channel).then(() =>
      options.subscriber.on('message', (from: string) => {
        if (from !== channel) return;
        for (const wake of [...wakers]) wake();
      }),
    ));
  const byModel = new Map<string, CallLimiter>();

  const factory = ((model, limits) => {
    const existing = byModel.get(model);
    if (existing) return existing;
    const starts = `${prefix}:${model}:starts`;
    const leases = `${prefix}:${model}:leases`;
    const rpm = limits.requestsPerMinute ?? 0;
    const concurrent = limits.concurrent ?? 0;
    const limiter: CallLimiter = {
      async acquire(signal?: AbortSignal) {
        await subscribe();
        const lease = randomUUID();
        for (;;) {
          signal?.throwIfAborted();
          const [granted, waitMs] = (await options.redis.eval(
            ACQUIRE,
            2,
            starts,
            leases,
            rpm,
            concurrent,
            windowMs,
            lease,
            LEASE_MS,
          )) as [number, number];
          if (granted === 1) break;
          await waitForRelease(Math.min(waitMs, MAX_WAIT_MS), signal);
        }
        const renew =
          concurrent > 0
            ? setInterval(() => {
                void options.redis
                  .eval(
                    "local t = redis.call('TIME'); return redis.call('ZADD', KEYS[1], 'XX', t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[2]), ARGV[1])",
                    1,
                    leases,
                    lease,
                    LEASE_MS,
                  )
                  .catch(() => {});
              }, LEASE_MS / 3)
            : null;
        renew?.unref();
        let released = false;
        return () => {
          if (released) return;
          released = true;
          if (renew) clearInterval(renew);
          if (concurrent === 0) return;
          void options.redis
            .multi()
            .zrem(leases, lease)
            .publish(channel, model)
            .exec()
            .catch(() => {});
        };
      },
    };
    byModel.set(model, limiter);
    return limiter;
  }) as CallLimiterFactory & { close(): Promise<void> };

  /** Waits until a release notice arrives or `ms` pass. */
  const waitForRelease = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const done = () => {
        wakers.delete(wake);
        controller.abort();
        signal?.removeEventListener('abort', onAbort);
      };
      const wake = () => {
        done();
        resolve();
      };
      const onAbort = () => {
        done();
        reject(signal?.reason);
      };
      const controller = new AbortController();
      wakers.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
      sleep(ms, controller.signal).then(wake, () => {});
    });

  factory.close = async () => {
    if (subscribed) await options.subscriber.unsubscribe(channel).catch(() => {});
  };
  return factory;
}
