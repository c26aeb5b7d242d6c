import type { JSONValue } from 'ai';
import type { BackendFeatures } from '../../types/backend.js';
import { isRecord } from '../../util/guards.js';

/** Gemini's `generationConfig.thinkingConfig`, as the AI SDK's `google` provider options spell it. */
export interface GeminiThinkingConfig {
  thinkingBudget?: number;
  includeThoughts?: boolean;
  thinkingLevel?: 'minimal' | 'low' | 'medium' | 'high';
}

/**
 * The `thinkingConfig` our features ask for, over any `thinkingConfig` in the user's flat provider-options
 * bag (typed features win field by field; the rest of the bag's config is kept). Undefined when neither
 * says anything, so the request carries no `thinkingConfig` and the model's default applies.
 *
 * `thinking.budgetTokens` is Gemini 2.5's `thinkingBudget`; `reasoning.effort` is Gemini 3's
 * `thinkingLevel`; `thinking.includeThoughts` (or asking for a reasoning `summary`) returns thought
 * summaries, which stream as reasoning.
 */
export function geminiThinkingConfig(
  features: BackendFeatures | undefined,
  providerOptions: Record<string, unknown>,
): Record<string, JSONValue> | undefined {
  const fromBag = providerOptions['thinkingConfig'];
  const config: GeminiThinkingConfig = isRecord(fromBag) ? { ...(fromBag as GeminiThinkingConfig) } : {};
  const thinking = features?.thinking;
  const reasoning = features?.reasoning;
  if (thinking?.budgetTokens !== undefined) config.thinkingBudget = thinking.budgetTokens;
  if (reasoning?.effort !== undefined) config.thinkingLevel = reasoning.effort;
  if (thinking?.includeThoughts !== undefined) config.includeThoughts = thinking.includeThoughts;
  else if (reasoning?.summary !== undefined) config.includeThoughts = true;
  return Object.keys(config).length === 0 ? undefined : (config as Record<string, JSONValue>);
}
