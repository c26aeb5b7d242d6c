import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { BackendFactory, BackendSettings } from '../../types/backend.js';
import { createLanguageModelBackend } from '../ai-sdk/language-model-backend.js';
import { isLoopbackUrl } from '../is-loopback-url.js';

const TYPE = 'chatcompletion';
const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * Any OpenAI Chat Completions compatible server: OpenAI itself, vLLM, llama.cpp, Ollama, LM Studio,
 * OpenRouter and the like. Streams with `stream_options.include_usage` so token usage is reported.
 */
export const chatCompletionBackend: BackendFactory = {
  type: TYPE,
  description: 'OpenAI Chat Completions API or any compatible server (vLLM, llama.cpp, Ollama, OpenRouter…)',
  apiKeyEnv: 'OPENAI_API_KEY',
  defaultBaseUrl: DEFAULT_BASE_URL,
  keyOptional: (settings: BackendSettings) => isLoopbackUrl(settings.baseUrl),
  create(settings) {
    const baseURL = settings.baseUrl ?? DEFAULT_BASE_URL;
    const provider = createOpenAICompatible({
      name: TYPE,
      baseURL,
      ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
      ...(settings.headers === undefined ? {} : { headers: settings.headers }),
      includeUsage: true,
    });
    return createLanguageModelBackend({
      type: TYPE,
      modelId: settings.model,
      model: provider.chatModel(settings.model),
      providerName: TYPE,
      baseUrl: baseURL,
      providerOptions: settings.providerOptions,
      ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
      ...(settings.maxTokens === undefined ? {} : { maxTokens: settings.maxTokens }),
      ...(settings.apiKey === undefined ? {} : { secrets: [settings.apiKey] }),
    });
  },
};
