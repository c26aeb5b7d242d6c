import { describe, expect, it } from 'vitest';
import { costOf } from '../types/usage.js';
import { builtInPrices, findBuiltInPrice } from './pricing.js';

describe('built-in price table', () => {
  it.each([
    ['gpt-4o-mini', 'gpt-4o-mini'],
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['gpt-5-mini-2025-08-07', 'gpt-5-mini'],
    ['o3-mini', 'o3-mini'],
    ['o3-2025-04-16', 'o3'],
    ['claude-sonnet-4-20250514', 'claude-sonnet-4'],
    ['claude-sonnet-4-5', 'claude-sonnet-4'],
    ['anthropic/claude-3.5-haiku', 'claude-3.5-haiku'],
    ['gemini-2.5-flash-lite', 'gemini-2.5-flash-lite'],
    ['gemini-2.5-flash-preview-09-2025', 'gemini-2.5-flash'],
    ['grok-4-fast-reasoning', 'grok-4-fast'],
  ])('%s is priced as %s', (model, key) => {
    expect(findBuiltInPrice(model)).toBe(builtInPrices[key]);
  });

  it.each(['llama3.2', 'gpt-4', 'o3x', 'my-finetune'])('%s has no built-in price', (model) => {
    expect(findBuiltInPrice(model)).toBeUndefined();
  });

  it('turns usage into dollars, cached input at its own price', () => {
    const price = findBuiltInPrice('gpt-4o-mini');
    // 1M input of which 400k cached, 100k output: 0.6*0.15 + 0.4*0.075 + 0.1*0.6
    expect(
      costOf(
        { inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 100_000, reasoningTokens: 0 },
        price,
      ),
    ).toBeCloseTo(0.09 + 0.03 + 0.06, 10);
    expect(
      costOf({ inputTokens: 5, cachedInputTokens: 0, outputTokens: 5, reasoningTokens: 0 }, undefined),
    ).toBe(0);
  });
});
