import { describe, expect, it } from 'vitest';
import { formatAgentsCost, formatCostOf, formatUsd } from './cost-text.js';

describe('cost wording (one rule for every view)', () => {
  it('dollars: four digits under $1, so a cheap run never reads $0.00; two from $1', () => {
    expect(formatUsd(0.0123)).toBe('$0.0123');
    expect(formatUsd(0)).toBe('$0.0000');
    expect(formatUsd(12.5)).toBe('$12.50');
  });

  it('unknown is never zero: an unpriced model alone is "cost unknown"', () => {
    expect(formatCostOf([{ usd: 0, priced: false }])).toBe('cost unknown');
    expect(formatCostOf([{ usd: 0, priced: false }])).not.toMatch(/\$0/);
  });

  it('a sum with an unknown part says so beside what is known', () => {
    expect(
      formatCostOf([
        { usd: 0.12, priced: true },
        { usd: 0, priced: false },
      ]),
    ).toBe('$0.1200 + unknown');
    // A billed tool call of an unpriced agent is known; its model calls are not.
    expect(formatCostOf([{ usd: 2, priced: false }])).toBe('$2.00 + unknown');
  });

  it('all priced: the plain sum (zero is a real zero then)', () => {
    expect(
      formatCostOf([
        { usd: 0.5, priced: true },
        { usd: 0.75, priced: true },
      ]),
    ).toBe('$1.25');
    expect(formatCostOf([{ usd: 0, priced: true }])).toBe('$0.0000');
    expect(formatCostOf([])).toBe('$0.0000');
  });

  it('reads agents as the run state keeps them', () => {
    expect(
      formatAgentsCost([
        { costUsd: 0.01, priced: true },
        { costUsd: 0, priced: false },
      ]),
    ).toBe('$0.0100 + unknown');
  });
});
