import { afterEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from './rate-limiter.js';

/** Lets every settled promise run its callbacks. */
const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

afterEach(() => {
  vi.useRealTimers();
});

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
    await flush();
    expect(order).toEqual([]);
    releases[0]?.();
    const r3 = await third;
    expect(order).toEqual([3]);
    // Giving a slot back twice frees one slot, not two.
    releases[0]?.();
    await flush();
    expect(order).toEqual([3]);
    releases[1]?.();
    (await fourth)();
    r3();
    expect(order).toEqual([3, 4]);
  });

  it('spaces starts so no sliding minute holds more than requests_per_minute', async () => {
    vi.useFakeTimers({ now: 0 });
    const limiter = new RateLimiter({ requestsPerMinute: 2 });
    const startedAt: number[] = [];
    const start = async () => {
      (await limiter.acquire())();
      startedAt.push(Date.now());
    };
    await start();
    await vi.advanceTimersByTimeAsync(10_000);
    await start();
    await vi.advanceTimersByTimeAsync(10_000);
    const third = start();
    // Starts at 0 and 10 s; the third waits until the first leaves the window (60 s), not for a
    // fixed minute to end.
    await vi.advanceTimersByTimeAsync(39_999);
    expect(startedAt).toEqual([0, 10_000]);
    await vi.advanceTimersByTimeAsync(1);
    await third;
    expect(startedAt).toEqual([0, 10_000, 60_000]);
    // The fourth waits for the second start (10 s) to leave the window.
    const fourth = start();
    await vi.advanceTimersByTimeAsync(10_000);
    await fourth;
    expect(startedAt.at(-1)).toBe(70_000);
  });

  it('applies both limits together', async () => {
    vi.useFakeTimers({ now: 0 });
    const limiter = new RateLimiter({ requestsPerMinute: 3, concurrent: 1 });
    const held = await limiter.acquire();
    let second: (() => void) | undefined;
    void limiter.acquire().then((release) => (second = release));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(second).toBeUndefined();
    held();
    await vi.advanceTimersByTimeAsync(0);
    expect(second).toBeDefined();
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
    await expect(limiter.acquire(controller.signal)).rejects.toThrow('stop');
  });

  it('an abort after the slot was given keeps it taken until the caller gives it back', async () => {
    const limiter = new RateLimiter({ concurrent: 1 });
    const controller = new AbortController();
    const held = await limiter.acquire(controller.signal);
    controller.abort(new Error('stop'));
    let next: (() => void) | undefined;
    void limiter.acquire().then((release) => (next = release));
    await flush();
    // The aborted call is still winding down: its slot is not handed on yet.
    expect(next).toBeUndefined();
    held();
    await flush();
    expect(next).toBeDefined();
  });
});
