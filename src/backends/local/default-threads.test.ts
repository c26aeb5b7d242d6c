import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { defaultThreads, MAX_DEFAULT_THREADS } from './default-threads.js';

describe('defaultThreads', () => {
  it('uses 1 thread on machines with 2 cores or fewer', () => {
    expect(defaultThreads(1)).toBe(1);
    expect(defaultThreads(2)).toBe(1);
  });

  it('uses half the cores, rounded down, above 2 cores', () => {
    expect(defaultThreads(3)).toBe(1);
    expect(defaultThreads(4)).toBe(2);
    expect(defaultThreads(6)).toBe(3);
    expect(defaultThreads(12)).toBe(6);
  });

  it('never picks more than 8 threads', () => {
    expect(MAX_DEFAULT_THREADS).toBe(8);
    expect(defaultThreads(16)).toBe(8);
    expect(defaultThreads(128)).toBe(8);
  });

  it('treats nonsense core counts as a small machine', () => {
    expect(defaultThreads(0)).toBe(1);
    expect(defaultThreads(Number.NaN)).toBe(1);
  });

  it("defaults to this machine's core count", () => {
    expect(defaultThreads()).toBe(defaultThreads(availableParallelism()));
  });
});
