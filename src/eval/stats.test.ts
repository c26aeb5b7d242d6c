import { describe, expect, it } from 'vitest';
import { mcnemarExact, wilsonInterval } from './stats.js';

describe('wilsonInterval', () => {
  it('matches the published 95% interval of 7 of 10 (statsmodels: 0.396778, 0.892209)', () => {
    const { low, high } = wilsonInterval(7, 10);
    expect(low).toBeCloseTo(0.396778, 6);
    expect(high).toBeCloseTo(0.892209, 6);
  });
  it('stays inside [0, 1] at the extremes and is [0, 1] without data', () => {
    expect(wilsonInterval(0, 5).low).toBe(0);
    expect(wilsonInterval(5, 5).high).toBeCloseTo(1, 12);
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
  });
});

describe('mcnemarExact', () => {
  it('is twice the binomial tail of the smaller discordant count', () => {
    expect(mcnemarExact(5, 0)).toBeCloseTo(2 / 32, 12);
    expect(mcnemarExact(3, 1)).toBeCloseTo((2 * 5) / 16, 12);
    expect(mcnemarExact(2, 10)).toBeCloseTo((2 * (1 + 12 + 66)) / 4096, 12);
    expect(mcnemarExact(4, 4)).toBe(1);
    expect(mcnemarExact(0, 0)).toBe(1);
  });
  it('holds for thousands of questions (summed in log space)', () => {
    const p = mcnemarExact(1100, 1000);
    expect(p).toBeGreaterThan(0.02);
    expect(p).toBeLessThan(0.05);
    expect(mcnemarExact(2000, 10)).toBeLessThan(1e-300);
  });
});
