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
