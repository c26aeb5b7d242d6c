import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import type { Backend, BackendFeatures, BackendSettings, MediaInput } from '../../types/backend.js';
import { createLanguageModelBackend } from '../ai-sdk/language-model-backend.js';
import { settingsCallOptions } from '../ai-sdk/settings-options.js';
import { sharedModel } from '../ai-sdk/shared-models.js';
import { mediaGate, type MediaFormats } from '../media-input.js';
import { leanChatStream } from './chat-stream.js';
import { expandVideoParts, markVideos, withVideoParts } from './video-parts.js';

/** What {@link createOpenAICompatibleBackend} needs besides the settings. */
export interface OpenAICompatibleBackendOptions {
  /** Our config `type`; prefixes error messages and keys the provider options. */
  type: string;
  /** The resolved base URL (the config's `base_url` or the backend's default). */
  baseURL: string;
  settings: BackendSettings;
  /** What the served model takes (the factory's `mediaIn`) and in which formats; parts beyond it become notes. */
  media: { input: MediaInput; formats: MediaFormats };
}

/**
 * Body fields `extraBody` may not replace: they carry the conversation and the streaming protocol the
 * backend relies on, so overriding them would break the call rather than tune it.
 */
const PROTECTED_BODY_FIELDS = new Set([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'stream',
  'stream_options',
]);

/**
 * A {@link Backend} for any OpenAI Chat Completions compatible server, through the AI SDK's
 * `@ai-sdk/openai-compatible` provider. Shared by `chatcompletion` and the local-server backends.
 *
 * - Streams with `stream_options.include_usage` so token usage is reported.
 * - `settings.apiKey` is sent as a bearer token when set; nothing is sent otherwise.
 * - `features.reasoning.effort` becomes `reasoning_effort`; `settings.providerOptions` are copied into
 *   the request body (explicit provider options win over the feature).
 * - `settings.extraBody` fields (`top_k`, `repetition_penalty`, `chat_template_kwargs`, …) are merged
 *   into the request body last, except the protocol fields listed in {@link PROTECTED_BODY_FIELDS}.
 * - Media: images as `image_url`, WAV/MP3 as `input_audio`, PDF as a `file` part, video (for models
 *   configured with `media_in: [video]`) as vLLM's `video_url` part.
 */
export function createOpenAICompatibleBackend(options: OpenAICompatibleBackendOptions): Backend {
  const { type, baseURL, settings } = options;
  const extraBody = allowedExtraBody(settings.extraBody);
  const { apiKey, headers, model: modelId } = settings;
  const { model, openStream } = sharedModel({ type, baseURL, apiKey, headers, extraBody, modelId }, () => {
    const chat = createOpenAICompatible({
      name: type,
      baseURL,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(headers === undefined ? {} : { headers }),
      includeUsage: true,
      transformRequestBody: (body) => expandVideoParts({ ...body, ...extraBody }),
    }).chatModel(modelId);
    // Streams are read without the SDK's stream pipeline, its cost per call and per chunk (chat-stream.ts).
    const lean = leanChatStream(chat);
    return {
      model: withVideoParts(chat),
      openStream: lean && ((call: LanguageModelV3CallOptions) => lean(markVideos(call))),
    };
  });
  return createLanguageModelBackend({
    type,
    modelId: settings.model,
    model,
    ...(openStream ? { openStream } : {}),
    providerName: type,
    baseUrl: baseURL,
    providerOptions: { ...reasoningOptions(settings.features), ...settings.providerOptions },
    media: { gate: mediaGate(options.media.input, options.media.formats) },
    ...settingsCallOptions(settings),
  });
}

function reasoningOptions(features: BackendFeatures | undefined): Record<string, unknown> {
  const effort = features?.reasoning?.effort;
  return effort === undefined ? {} : { reasoningEffort: effort };
}

function allowedExtraBody(
  extraBody: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (extraBody === undefined) return undefined;
  const allowed = Object.entries(extraBody).filter(([key]) => !PROTECTED_BODY_FIELDS.has(key));
  return allowed.length === 0 ? undefined : Object.fromEntries(allowed);
}
