import type * as AnthropicSdk from '@ai-sdk/anthropic';
import { lazyBackend } from '../lazy-backend.js';
import type { JSONValue } from 'ai';
import type { BackendFactory } from '../../types/backend.js';
import { createLanguageModelBackend } from '../ai-sdk/language-model-backend.js';
import { CLOUD_CAPABILITIES, settingsCallOptions } from '../ai-sdk/settings-options.js';
import { isLoopbackUrl } from '../is-loopback-url.js';
import { ANTHROPIC_FORMATS, claudeMediaIn, mediaGate } from '../media-input.js';
import { claudeNativeTool } from './computer-tool.js';
import { claudeFeatureOptions, claudeProviderTools } from './features.js';
import { thinkingReplayMiddleware } from './thinking-replay.js';

/** `@ai-sdk/anthropic`, loaded by the first call of a claude agent. */
let anthropicSdk: typeof AnthropicSdk | undefined;

const TYPE = 'claude';
const DEFAULT_BASE_URL = 'https://api.anthropic.com/v1';

/**
 * `max_tokens` when the config gives none. Anthropic requires the field; 8192 leaves room for long
 * final answers and fits every current Claude model (the SDK lowers it to a known model's maximum).
 */
export const DEFAULT_MAX_TOKENS = 8192;

/**
 * Anthropic's Messages API (`POST {base_url}/messages`) through the AI SDK's Anthropic provider.
 *
 * - `max_tokens`: the config's `max_tokens`, else {@link DEFAULT_MAX_TOKENS}. With extended thinking the
 *   SDK sends `max_tokens + budget_tokens`, so the budget never eats the answer's share.
 * - `features.thinking` → `thinking: { type: 'enabled', budget_tokens }`; signed thinking blocks are
 *   replayed into later steps of a tool loop, as Anthropic requires.
 * - `features.webSearch` / `features.codeExecution` → Anthropic's server tools `web_search` / `code_execution`.
 * - `provider_options`: the SDK's Anthropic options (`effort`, `thinking`, `sendReasoning`,
 *   `disableParallelToolUse`, …), applied over the feature-derived ones.
 * - A tool marked `native: { kind: 'computer' }` (`tools.computer` on a model with computer use) goes
 *   as Anthropic's own computer tool, its screenshots as image blocks inside the `tool_result`.
 * - `headers`: sent on every request (e.g. `anthropic-beta`); the key goes in `x-api-key`.
 */
export const claudeBackend: BackendFactory = {
  type: TYPE,
  description: 'Anthropic Claude (Messages API): extended thinking, web search, code execution',
  capabilities: CLOUD_CAPABILITIES,
  apiKeyEnvs: () => ['ANTHROPIC_API_KEY'],
  defaultBaseUrl: () => DEFAULT_BASE_URL,
  // Local Anthropic-compatible servers and proxies (Ollama, LiteLLM) usually take no key.
  keyOptional: (settings) => isLoopbackUrl(settings.baseUrl),
  mediaIn: claudeMediaIn,
  create(settings) {
    return lazyBackend(TYPE, settings.model, async () => {
      anthropicSdk ??= await import('@ai-sdk/anthropic');
      const { wrapLanguageModel } = await import('ai');
      const baseURL = settings.baseUrl ?? DEFAULT_BASE_URL;
      const provider = anthropicSdk!.createAnthropic({
        baseURL,
        // Always a string: without one the SDK would read ANTHROPIC_API_KEY itself, and secrets
        // reach backends only through settings.
        apiKey: settings.apiKey ?? '',
        ...(settings.headers === undefined ? {} : { headers: settings.headers }),
      });
      const model = wrapLanguageModel({
        model: provider.messages(settings.model),
        middleware: thinkingReplayMiddleware(),
      });
      return createLanguageModelBackend({
        type: TYPE,
        modelId: settings.model,
        model,
        providerName: 'anthropic',
        baseUrl: baseURL,
        providerOptions: {
          ...claudeFeatureOptions(settings.features),
          ...(settings.providerOptions as Record<string, JSONValue>),
        },
        providerTools: claudeProviderTools(provider, settings.features),
        nativeTool: claudeNativeTool(provider, settings.model),
        maxTokens: settings.maxTokens ?? DEFAULT_MAX_TOKENS,
        media: { gate: mediaGate(claudeMediaIn(settings), ANTHROPIC_FORMATS) },
        ...settingsCallOptions(settings),
      });
    });
  },
};
