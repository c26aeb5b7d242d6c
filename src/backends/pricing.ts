import type { ModelPrice } from '../types/usage.js';

/**
 * Built-in list prices in US dollars per million tokens (standard tier, text, short context), as
 * published by the vendors in 2025. Prices change: override any of them — or add a model — with the
 * config's top-level `pricing:` map. A model name matches the longest key it starts with, after any
 * `vendor/` prefix (OpenRouter style) is removed, so dated variants (`claude-sonnet-4-20250514`) match.
 */
export const builtInPrices: Readonly<Record<string, ModelPrice>> = {
  // OpenAI
  'gpt-5': { inputPerMillion: 1.25, cachedInputPerMillion: 0.125, outputPerMillion: 10 },
  'gpt-5-mini': { inputPerMillion: 0.25, cachedInputPerMillion: 0.025, outputPerMillion: 2 },
  'gpt-5-nano': { inputPerMillion: 0.05, cachedInputPerMillion: 0.005, outputPerMillion: 0.4 },
  'gpt-4.1': { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 },
  'gpt-4.1-mini': { inputPerMillion: 0.4, cachedInputPerMillion: 0.1, outputPerMillion: 1.6 },
  'gpt-4.1-nano': { inputPerMillion: 0.1, cachedInputPerMillion: 0.025, outputPerMillion: 0.4 },
  'gpt-4o': { inputPerMillion: 2.5, cachedInputPerMillion: 1.25, outputPerMillion: 10 },
  'gpt-4o-mini': { inputPerMillion: 0.15, cachedInputPerMillion: 0.075, outputPerMillion: 0.6 },
  o3: { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 },
  'o3-mini': { inputPerMillion: 1.1, cachedInputPerMillion: 0.55, outputPerMillion: 4.4 },
  'o4-mini': { inputPerMillion: 1.1, cachedInputPerMillion: 0.275, outputPerMillion: 4.4 },
  o1: { inputPerMillion: 15, cachedInputPerMillion: 7.5, outputPerMillion: 60 },
  // Anthropic (cached = cache reads)
  'claude-opus-4': { inputPerMillion: 15, cachedInputPerMillion: 1.5, outputPerMillion: 75 },
  'claude-sonnet-4': { inputPerMillion: 3, cachedInputPerMillion: 0.3, outputPerMillion: 15 },
  'claude-haiku-4': { inputPerMillion: 1, cachedInputPerMillion: 0.1, outputPerMillion: 5 },
  'claude-3-7-sonnet': { inputPerMillion: 3, cachedInputPerMillion: 0.3, outputPerMillion: 15 },
  'claude-3-5-sonnet': { inputPerMillion: 3, cachedInputPerMillion: 0.3, outputPerMillion: 15 },
  'claude-3-5-haiku': { inputPerMillion: 0.8, cachedInputPerMillion: 0.08, outputPerMillion: 4 },
  'claude-3.5-haiku': { inputPerMillion: 0.8, cachedInputPerMillion: 0.08, outputPerMillion: 4 },
  // Google
  'gemini-2.5-pro': { inputPerMillion: 1.25, cachedInputPerMillion: 0.31, outputPerMillion: 10 },
  'gemini-2.5-flash': { inputPerMillion: 0.3, cachedInputPerMillion: 0.075, outputPerMillion: 2.5 },
  'gemini-2.5-flash-lite': { inputPerMillion: 0.1, cachedInputPerMillion: 0.025, outputPerMillion: 0.4 },
  'gemini-2.0-flash': { inputPerMillion: 0.1, cachedInputPerMillion: 0.025, outputPerMillion: 0.4 },
  // xAI
  'grok-4': { inputPerMillion: 3, cachedInputPerMillion: 0.75, outputPerMillion: 15 },
  'grok-4-fast': { inputPerMillion: 0.2, cachedInputPerMillion: 0.05, outputPerMillion: 0.5 },
  'grok-3': { inputPerMillion: 3, cachedInputPerMillion: 0.75, outputPerMillion: 15 },
  'grok-3-mini': { inputPerMillion: 0.3, cachedInputPerMillion: 0.075, outputPerMillion: 0.5 },
  'grok-code-fast-1': { inputPerMillion: 0.2, cachedInputPerMillion: 0.02, outputPerMillion: 1.5 },
  // Others reached through `chatcompletion` presets
  'deepseek-chat': { inputPerMillion: 0.28, cachedInputPerMillion: 0.028, outputPerMillion: 0.42 },
  'deepseek-reasoner': { inputPerMillion: 0.28, cachedInputPerMillion: 0.028, outputPerMillion: 0.42 },
  'glm-4.5': { inputPerMillion: 0.6, cachedInputPerMillion: 0.11, outputPerMillion: 2.2 },
  'glm-4.6': { inputPerMillion: 0.6, cachedInputPerMillion: 0.11, outputPerMillion: 2.2 },
  'kimi-k2': { inputPerMillion: 0.6, cachedInputPerMillion: 0.15, outputPerMillion: 2.5 },
  'mistral-large': { inputPerMillion: 2, outputPerMillion: 6 },
  'mistral-medium': { inputPerMillion: 0.4, outputPerMillion: 2 },
  'mistral-small': { inputPerMillion: 0.1, outputPerMillion: 0.3 },
};

/** The built-in price of a model name, by longest matching prefix; undefined when unknown. */
export function findBuiltInPrice(model: string): ModelPrice | undefined {
  const name = (model.split('/').at(-1) ?? model).toLowerCase();
  let best: string | undefined;
  for (const key of Object.keys(builtInPrices)) {
    const matches =
      name === key || name.startsWith(`${key}-`) || name.startsWith(`${key}.`) || name.startsWith(`${key}@`);
    if (matches && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : builtInPrices[best];
}
