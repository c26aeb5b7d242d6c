import type * as GoogleSdk from '@ai-sdk/google';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { lazyBackend } from '../lazy-backend.js';
import type { Backend, BackendFactory, BackendSettings } from '../../types/backend.js';
import {
  createLanguageModelBackend,
  type LanguageModelBackendOptions,
} from '../ai-sdk/language-model-backend.js';
import { CLOUD_CAPABILITIES, settingsCallOptions } from '../ai-sdk/settings-options.js';
import { isLoopbackUrl } from '../is-loopback-url.js';
import { GEMINI_FORMATS, geminiMediaIn, mediaGate } from '../media-input.js';
import { geminiProviderTools, geminiSupportsToolCombination } from './provider-tools.js';
import { withPromptedToolCalls } from '../prompted-tool-calls.js';
import { leadingSystemMessagesOnly } from './system-messages.js';
import { geminiThinkingConfig } from './thinking-options.js';

/** `@ai-sdk/google`, loaded by the first call of a gemini agent. */
let googleSdk: typeof GoogleSdk | undefined;

export { geminiSupportsToolCombination } from './provider-tools.js';

const TYPE = 'gemini';
const DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';
/** The AI SDK's provider-options key for the Gemini API (Vertex would be `vertex`). */
const PROVIDER_OPTIONS_KEY = 'google';

/**
 * Google's Gemini API (`generativelanguage.googleapis.com`) through `@ai-sdk/google`: streaming, function
 * calling, thinking (`thinkingConfig`), Google Search grounding and code execution.
 *
 * Built-in tools and function tools in one request need Gemini 3; on older models with built-in tools
 * on, function tools are offered through the text (see {@link withPromptedToolCalls}).
 */
export const geminiBackend: BackendFactory = {
  type: TYPE,
  description: 'Google Gemini API (Gemini 2.5/3: thinking, Google Search grounding, code execution)',
  capabilities: CLOUD_CAPABILITIES,
  // GOOGLE_API_KEY first: it is what Google's own SDKs read when both are set.
  apiKeyEnvs: () => ['GOOGLE_API_KEY', 'GEMINI_API_KEY'],
  defaultBaseUrl: () => DEFAULT_BASE_URL,
  // A Gemini-speaking proxy or test server on this machine may need no key.
  keyOptional: (settings) => isLoopbackUrl(settings.baseUrl),
  mediaIn: geminiMediaIn,
  create: (settings) =>
    lazyBackend(TYPE, settings.model, async () => {
      googleSdk ??= await import('@ai-sdk/google');
      // Loads `ai` (for its model wrapper): only a run with a gemini agent pays for it.
      const { withGroundingToolCalls } = await import('./grounding-tool-calls.js');
      return createGeminiBackend(settings, withGroundingToolCalls);
    }),
};

function createGeminiBackend(
  settings: BackendSettings,
  withGroundingToolCalls: (model: LanguageModelV3) => LanguageModelV3,
): Backend {
  const baseURL = settings.baseUrl ?? DEFAULT_BASE_URL;
  const provider = googleSdk!.createGoogleGenerativeAI({
    baseURL,
    // Never undefined: the SDK would then read GOOGLE_GENERATIVE_AI_API_KEY from the environment itself.
    apiKey: settings.apiKey ?? '',
    headers: {
      ...settings.headers,
      // Without a key, send no `x-goog-api-key` at all (an undefined header is dropped) rather than an empty one.
      ...(settings.apiKey === undefined ? { 'x-goog-api-key': undefined } : {}),
    },
  });
  const thinkingConfig = geminiThinkingConfig(settings.features, settings.providerOptions);
  const common: LanguageModelBackendOptions = {
    type: TYPE,
    modelId: settings.model,
    model: withGroundingToolCalls(provider.languageModel(settings.model)),
    providerName: PROVIDER_OPTIONS_KEY,
    baseUrl: baseURL,
    providerOptions: settings.providerOptions,
    media: { gate: mediaGate(geminiMediaIn(settings), GEMINI_FORMATS) },
    ...(thinkingConfig === undefined
      ? {}
      : { nestedProviderOptions: { [PROVIDER_OPTIONS_KEY]: { thinkingConfig } } }),
    ...settingsCallOptions(settings),
  };
  const providerTools = geminiProviderTools(provider, settings.features);
  const plain = createLanguageModelBackend(common);
  const withBuiltIns =
    Object.keys(providerTools).length === 0
      ? plain
      : createLanguageModelBackend({ ...common, providerTools });
  const combines = geminiSupportsToolCombination(settings.model);
  // Before Gemini 3 the API refuses built-in tools next to function declarations (and the SDK would drop
  // our function tools to comply): with built-in tools on, the tools go through the text instead, as
  // MassGen does it.
  const prompted = withPromptedToolCalls(withBuiltIns);
  return {
    type: TYPE,
    model: settings.model,
    stream(request) {
      const backend =
        request.tools.length === 0 || combines ? withBuiltIns : withBuiltIns === plain ? plain : prompted;
      return backend.stream({ ...request, messages: leadingSystemMessagesOnly(request.messages) });
    },
  };
}
