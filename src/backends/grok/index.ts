import type * as XaiSdk from '@ai-sdk/xai';
import { lazyBackend } from '../lazy-backend.js';
import type { ToolSet } from 'ai';
import type { BackendFactory, BackendFeatures } from '../../types/backend.js';
import { createLanguageModelBackend } from '../ai-sdk/language-model-backend.js';
import { CLOUD_CAPABILITIES, settingsCallOptions } from '../ai-sdk/settings-options.js';
import { grokMediaIn, mediaGate, XAI_FORMATS } from '../media-input.js';

/** `@ai-sdk/xai`, loaded by the first call of a grok agent. */
let xaiSdk: typeof XaiSdk | undefined;

const TYPE = 'grok';
const DEFAULT_BASE_URL = 'https://api.x.ai/v1';
/** The AI SDK's provider-options key for xAI models. */
const PROVIDER_NAME = 'xai';

/**
 * xAI Grok. Normally the Chat Completions model (`POST /chat/completions`), as the SDK's `xai(model)`.
 *
 * Web search: xAI retired Live Search (`search_parameters` on chat completions now answers
 * `410 Gone`; the installed `@ai-sdk/xai` marks `searchParameters` deprecated for that reason). Its
 * replacement is the server-side `web_search` / `x_search` agent tools, which only the Responses API
 * runs, so `features.webSearch` switches the model to `xai.responses(model)` (`POST /responses`) and
 * offers both tools; their calls stream as `provider-tool-*` parts.
 *
 * `features.reasoning.effort` becomes `reasoning_effort` (chat) or `reasoning.effort` (responses);
 * `minimal` maps to `low`, xAI's lowest effort. Models that reject the parameter (e.g. older Grok 4
 * releases) answer HTTP 400, so it is sent only when configured.
 */
export const grokBackend: BackendFactory = {
  type: TYPE,
  description: 'xAI Grok (Chat Completions; web and X search through the Responses API)',
  capabilities: { ...CLOUD_CAPABILITIES, codeExecution: false },
  apiKeyEnvs: () => ['XAI_API_KEY'],
  defaultBaseUrl: () => DEFAULT_BASE_URL,
  mediaIn: grokMediaIn,
  create(settings) {
    return lazyBackend(TYPE, settings.model, async () => {
      xaiSdk ??= await import('@ai-sdk/xai');
      const baseURL = settings.baseUrl ?? DEFAULT_BASE_URL;
      const xai = xaiSdk!.createXai({
        baseURL,
        // Never undefined: the SDK would then read XAI_API_KEY from the environment itself, behind the app's
        // back. The app resolves the key and refuses to run without one.
        apiKey: settings.apiKey ?? '',
        ...(settings.headers === undefined ? {} : { headers: settings.headers }),
      });
      const webSearch = settings.features?.webSearch === true;
      return createLanguageModelBackend({
        type: TYPE,
        modelId: settings.model,
        model: webSearch ? xai.responses(settings.model) : xai.chat(settings.model),
        providerName: PROVIDER_NAME,
        baseUrl: baseURL,
        providerOptions: { ...reasoningOptions(settings.features), ...settings.providerOptions },
        ...(webSearch ? { providerTools: searchTools(xai) } : {}),
        media: { gate: mediaGate(grokMediaIn(settings), XAI_FORMATS) },
        ...settingsCallOptions(settings),
      });
    });
  },
};

function reasoningOptions(features: BackendFeatures | undefined): Record<string, unknown> {
  const effort = features?.reasoning?.effort;
  if (effort === undefined) return {};
  return { reasoningEffort: effort === 'minimal' ? 'low' : effort };
}

/**
 * xAI's server-side search tools. The cast bridges a typing gap only: `ai` and `@ai-sdk/xai` each
 * bundle a different `@ai-sdk/provider-utils` version, and the two `Tool` types do not line up
 * although the runtime shape is the same.
 */
function searchTools(xai: ReturnType<typeof XaiSdk.createXai>): ToolSet {
  return { web_search: xai.tools.webSearch(), x_search: xai.tools.xSearch() } as unknown as ToolSet;
}
