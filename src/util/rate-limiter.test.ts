import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limiter.js';

describe('RateLimiter', () => {
  it('holds callers beyond the concurrency limit until a slot is released, in order', async () => {
    const limiter = new RateLimiter({ concurrent: 2 });
    const order: number[] = [];
    const releases = await Promise.all([limiter.acquire(), limiter.acquire()]);
    const third = limiter.acquire().then((release) => {
      order.push(3);
      return release;
    });
    const fourth = limiter.acquire().then((release) => {
      order.push(4);
      return release;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    releases[0]?.();
    const r3 = await third;
    expect(order).toEqual([3]);
    releases[1]?.();
    (await fourth)();
    r3();
    expect(order).toEqual([3, 4]);
  });

  it('spaces starts so no sliding minute holds more than requests_per_minute', async () => {
    let clock = 0;
    const slept: number[] = [];
    const limiter = new RateLimiter({
      requestsPerMinute: 2,
      now: () => clock,
      sleep: async (ms) => {
        slept.push(ms);
        clock += ms;
      },
    });
    const startedAt: number[] = [];
    for (let i = 0; i < 3; i++) {
      (await limiter.acquire())();
      startedAt.push(clock);
      clock += 10_000;
    }
    // Starts at 0 and 10 s; the third waits until the first leaves the window (60 s).
    expect(startedAt).toEqual([0, 10_000, 60_000]);
    expect(slept).toEqual([40_000]);
  });

  it('an aborted wait rejects with the reason and does not take a slot', async () => {
    const limiter = new RateLimiter({ concurrent: 1 });
    const held = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    held();
    const next = await limiter.acquire();
    next();
  });
});
