import type { BackendCapabilities, BackendFactory } from '../../types/backend.js';
import { createOpenAICompatibleBackend } from '../chatcompletion/openai-compatible-backend.js';
import { OPENAI_COMPATIBLE_FORMATS, openAICompatibleMediaIn } from '../media-input.js';

/**
 * What OpenAI-compatible local servers offer: tools and images where the served model supports them,
 * reasoning streamed as `reasoning_content` (reasoning parsers), no provider-side search or code.
 */
export const LOCAL_SERVER_CAPABILITIES: BackendCapabilities = {
  streaming: true,
  tools: true,
  webSearch: false,
  codeExecution: false,
  reasoning: true,
  imagesIn: true,
};

/** One local server type: its config `type`, help line and where it listens by default. */
export interface LocalServerSpec {
  type: string;
  description: string;
  defaultBaseUrl: string;
}

/**
 * A registry entry for an OpenAI-compatible server on this machine. No key variable is read (a local
 * server should never receive a cloud key by accident); an `api_key` set in the config is still sent,
 * for servers started with one (`vllm serve --api-key`). `extra_body` fields reach the request body.
 */
export function localServerFactory(spec: LocalServerSpec): BackendFactory {
  return {
    type: spec.type,
    description: spec.description,
    capabilities: LOCAL_SERVER_CAPABILITIES,
    apiKeyEnvs: () => [],
    defaultBaseUrl: () => spec.defaultBaseUrl,
    keyOptional: () => true,
    // Images by default: what most served vision models take; `media_in:` says what another one takes.
    mediaIn: (settings) => openAICompatibleMediaIn(settings, false),
    create: (settings) =>
      createOpenAICompatibleBackend({
        type: spec.type,
        baseURL: settings.baseUrl ?? spec.defaultBaseUrl,
        settings,
        media: { input: openAICompatibleMediaIn(settings, false), formats: OPENAI_COMPATIBLE_FORMATS },
      }),
  };
}
