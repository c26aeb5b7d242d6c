import type { BackendFactory } from '../../types/backend.js';
import { isLoopbackUrl } from '../is-loopback-url.js';
import {
  chatCompletionKeyEnvs,
  DEFAULT_PRESET,
  findPreset,
  presetForBaseUrl,
  presetListWithAliases,
  selectPreset,
} from '../presets.js';
import { createOpenAICompatibleBackend } from './openai-compatible-backend.js';
import {
  OPENAI_CHAT_FORMATS,
  OPENAI_COMPATIBLE_FORMATS,
  openAICompatibleMediaIn,
  type MediaInputSettings,
} from '../media-input.js';

const TYPE = 'chatcompletion';

/**
 * Any OpenAI Chat Completions compatible server: OpenAI itself, the hosted providers in
 * `OPENAI_COMPATIBLE_PRESETS` (Groq, OpenRouter, Cerebras…), or a local server.
 *
 * The preset is `provider:` when it names one; otherwise the one whose host serves `base_url`;
 * otherwise OpenAI. It supplies the default base URL and the key variable. A loopback `base_url`
 * needs no key, and without an explicit `provider:` no key variable is read for it (a local server
 * should not receive a cloud key by accident); an `api_key` in the config is still sent.
 */
export const chatCompletionBackend: BackendFactory = {
  type: TYPE,
  description: 'OpenAI Chat Completions API or any compatible server (Groq, OpenRouter, vLLM, llama.cpp…)',
  // No provider-side web search or code execution over Chat Completions; reasoning is
  // `reasoning_effort` in, `reasoning_content` out.
  capabilities: {
    streaming: true,
    tools: true,
    webSearch: false,
    codeExecution: false,
    reasoning: true,
    imagesIn: true,
  },
  presets: presetListWithAliases(),
  apiKeyEnvs: chatCompletionKeyEnvs,
  defaultBaseUrl: (settings) => selectPreset(settings).baseUrl,
  keyOptional: (settings) => isLoopbackUrl(settings.baseUrl),
  mediaIn: (settings) => openAICompatibleMediaIn(settings, servesOpenAI(settings)),
  create(settings) {
    return createOpenAICompatibleBackend({
      type: TYPE,
      baseURL: settings.baseUrl ?? selectPreset(settings).baseUrl,
      settings,
      media: {
        input: openAICompatibleMediaIn(settings, servesOpenAI(settings)),
        formats: servesOpenAI(settings) ? OPENAI_CHAT_FORMATS : OPENAI_COMPATIBLE_FORMATS,
      },
    });
  },
};

/**
 * Whether OpenAI itself serves these settings (its models' media figures apply): `provider: openai`,
 * or no provider and a `base_url` on OpenAI's host or none. A server on this machine is never OpenAI.
 */
function servesOpenAI(settings: MediaInputSettings): boolean {
  if (settings.provider !== undefined) return findPreset(settings.provider) === DEFAULT_PRESET;
  if (settings.baseUrl === undefined) return true;
  return presetForBaseUrl(settings.baseUrl) === DEFAULT_PRESET;
}
