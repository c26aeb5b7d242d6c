import type * as OpenAISdk from '@ai-sdk/openai';
import { lazyBackend } from '../lazy-backend.js';
import type { BackendFactory } from '../../types/backend.js';
import { createLanguageModelBackend } from '../ai-sdk/language-model-backend.js';
import { CLOUD_CAPABILITIES, settingsCallOptions } from '../ai-sdk/settings-options.js';
import { isLoopbackUrl } from '../is-loopback-url.js';
import {
  isOpenAIAudioModel,
  mediaGate,
  OPENAI_CHAT_FORMATS,
  OPENAI_RESPONSES_FORMATS,
  openAIMediaIn,
} from '../media-input.js';
import { providerHeaders, responsesProviderOptions, responsesProviderTools } from './responses-options.js';

/** `@ai-sdk/openai`, loaded by the first call of a openai agent. */
let openaiSdk: typeof OpenAISdk | undefined;

const TYPE = 'openai';
const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * OpenAI through the Responses API (`POST {base_url}/responses`), with OpenAI's built-in tools.
 *
 * - `features.reasoning` → `reasoning.effort` / `reasoning.summary` (summaries stream as
 *   `reasoning-delta` parts); `features.textVerbosity` → `text.verbosity`.
 * - `features.webSearch` → the `web_search` tool, `features.codeExecution` → `code_interpreter` with an
 *   automatic container; both run at OpenAI and stream back as `provider-tool-*` parts.
 * - `provider_options` is merged last, under the AI SDK's camelCase names (see
 *   {@link responsesProviderOptions}).
 *
 * Every call sends the full history (no `previous_response_id`, no item references), so nothing
 * depends on state stored at OpenAI; `store` keeps OpenAI's default unless `provider_options` sets it.
 *
 * Media: images go as `input_image`, PDF as `input_file`. OpenAI's audio models (`gpt-4o-audio-preview`,
 * `gpt-audio`…) exist on Chat Completions only, so for them the backend calls `POST /chat/completions`
 * and sends WAV/MP3 as `input_audio` (without the Responses-only built-in tools).
 */
export const openAIBackend: BackendFactory = {
  type: TYPE,
  description:
    'OpenAI Responses API (GPT-5, o-series…) with web search, code interpreter and reasoning summaries',
  capabilities: CLOUD_CAPABILITIES,
  apiKeyEnvs: () => ['OPENAI_API_KEY'],
  defaultBaseUrl: () => DEFAULT_BASE_URL,
  // A local server speaking the Responses API (vLLM, Ollama…) usually needs no key.
  keyOptional: (settings) => isLoopbackUrl(settings.baseUrl),
  mediaIn: openAIMediaIn,
  create(settings) {
    const audioChat = isOpenAIAudioModel(settings.model);
    const gate = mediaGate(
      openAIMediaIn(settings),
      audioChat ? OPENAI_CHAT_FORMATS : OPENAI_RESPONSES_FORMATS,
    );
    return lazyBackend(TYPE, settings.model, async () => {
      openaiSdk ??= await import('@ai-sdk/openai');
      const baseURL = settings.baseUrl ?? DEFAULT_BASE_URL;
      const headers = providerHeaders('Authorization', settings.apiKey, settings.headers);
      const provider = openaiSdk!.createOpenAI({
        baseURL,
        // Never undefined: the SDK would then read OPENAI_API_KEY from the environment itself.
        apiKey: settings.apiKey ?? '',
        ...(headers === undefined ? {} : { headers }),
      });
      return createLanguageModelBackend({
        type: TYPE,
        modelId: settings.model,
        model: audioChat ? provider.chat(settings.model) : provider.responses(settings.model),
        providerName: 'openai',
        baseUrl: baseURL,
        providerOptions: responsesProviderOptions(settings.features, settings.providerOptions),
        ...(audioChat ? {} : { providerTools: responsesProviderTools(settings.features, provider.tools) }),
        media: { gate },
        ...settingsCallOptions(settings),
      });
    });
  },
};
