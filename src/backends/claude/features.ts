import type { AnthropicProvider } from '@ai-sdk/anthropic';
import type { JSONValue, ToolSet } from 'ai';
import type { BackendFeatures } from '../../types/backend.js';

/**
 * Web searches Claude may run per model call. Anthropic bills each search, and an unbounded agent
 * could search dozens of times in one step; five covers a normal research step.
 */
export const WEB_SEARCH_MAX_USES = 5;

/** Thinking budget when `features.thinking` is set without `budgetTokens` (Anthropic's minimum is 1024). */
export const DEFAULT_THINKING_BUDGET = 4096;

/**
 * Anthropic's server-side tools for the requested features, keyed by the names Claude uses for them
 * (`web_search`, `code_execution`), so their calls stream as `provider-tool-*` parts under those names.
 *
 * Versions: `web_search_20250305` (every tool-capable Claude model, no beta header) and
 * `code_execution_20250825` (Python and Bash; the SDK adds the `code-execution-2025-08-25` beta header).
 */
export function claudeProviderTools(provider: AnthropicProvider, features: BackendFeatures = {}): ToolSet {
  const tools: ToolSet = {};
  if (features.webSearch === true) {
    tools.web_search = provider.tools.webSearch_20250305({ maxUses: WEB_SEARCH_MAX_USES });
  }
  if (features.codeExecution === true) tools.code_execution = provider.tools.codeExecution_20250825();
  return tools;
}

/**
 * The AI SDK Anthropic options (`providerOptions.anthropic`) the features ask for: extended thinking
 * becomes `{ thinking: { type: 'enabled', budgetTokens } }`. `includeThoughts` has no Anthropic
 * equivalent (budget thinking always returns its summary) and is ignored.
 */
export function claudeFeatureOptions(features: BackendFeatures = {}): Record<string, JSONValue> {
  if (features.thinking === undefined) return {};
  const budgetTokens = features.thinking.budgetTokens ?? DEFAULT_THINKING_BUDGET;
  return { thinking: { type: 'enabled', budgetTokens } };
}
