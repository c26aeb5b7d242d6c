import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisServerPath, startRedisServer, type RedisServer } from '../../test/support/redis-server.js';
import { redisLimiters } from './redis-rate-limiter.js';

const noRedis = redisServerPath === null;
const SKIP = noRedis ? ' (skipped: no redis-server)' : '';
let server: RedisServer | null = null;
const connections: Redis[] = [];

beforeAll(async () => {
  if (!noRedis) server = await startRedisServer();
});
afterAll(async () => {
  for (const c of connections) c.disconnect();
  await server?.stop();
});

/** Limiters as one worker process has them: a connection for commands, one for release notices. */
function workerLimiters(windowMs?: number) {
  const connect = () => {
    const redis = new Redis({ host: '127.0.0.1', port: server?.port ?? 0, maxRetriesPerRequest: null });
    connections.push(redis);
    return redis;
  };
  return redisLimiters({ redis: connect(), subscriber: connect(), ...(windowMs ? { windowMs } : {}) });
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('rate limits shared through Redis', () => {
  it.skipIf(noRedis)(
    `a concurrency limit holds across processes: the second caller waits for the first to release${SKIP}`,
    async () => {
      const first = workerLimiters()('shared-model', { concurrent: 1 });
      const second = workerLimiters()('shared-model', { concurrent: 1 });
      const order: string[] = [];
      const release = await first.acquire();
      order.push('first acquired');
      const waiting = second.acquire().then((r) => {
        order.push('second acquired');
        return r;
      });
      await settle(300);
      expect(order).toEqual(['first acquired']);
      order.push('first released');
      release();
      (await waiting)();
      expect(order).toEqual(['first acquired', 'first released', 'second acquired']);
    },
  );

  it.skipIf(noRedis)(`a requests-per-window limit holds across processes${SKIP}`, async () => {
    const a = workerLimiters(400)('rpm-model', { requestsPerMinute: 2 });
    const b = workerLimiters(400)('rpm-model', { requestsPerMinute: 2 });
    const started = performance.now();
    (await a.acquire())();
    (await b.acquire())();
    (await a.acquire())();
    // The third start had to wait for the first to leave the window.
    expect(performance.now() - started).toBeGreaterThanOrEqual(350);
  });

  it.skipIf(noRedis)(`waiting stops when the call is aborted${SKIP}`, async () => {
    const limiter = workerLimiters()('abort-model', { concurrent: 1 });
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    release();
    (await limiter.acquire())();
  });
});
