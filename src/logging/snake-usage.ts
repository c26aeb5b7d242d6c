import type { TokenUsage } from '../types/usage.js';

/** Token usage as written to log files: snake_case, matching the Python implementation's logs. */
export interface SnakeUsage {
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cached_input_tokens: number;
}

/** Converts in-memory usage to its log-file shape. */
export function toSnakeUsage(usage: TokenUsage): SnakeUsage {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    reasoning_tokens: usage.reasoningTokens,
    cached_input_tokens: usage.cachedInputTokens,
  };
}

/** Dollars rounded to 1/1,000,000 (enough for single cheap calls, without float noise in the files). */
export function roundCost(usd: number): number {
  return Math.round(usd * 1_000_000) / 1_000_000;
}
