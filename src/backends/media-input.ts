import type { BackendSettings, MediaInput } from '../types/backend.js';
import type { MediaKind, MediaPart } from '../types/media.js';

/**
 * Which media each vendor's model families take, and in which formats: the figures behind every
 * factory's `mediaIn` and the check each backend runs before a part reaches the wire (so a file the
 * vendor would refuse becomes a line of text instead of a 400). docs/multimodal.md shows the table.
 */

const MB = 1024 * 1024;

/** The settings a factory's `mediaIn` reads. */
export type MediaInputSettings = Pick<BackendSettings, 'model' | 'baseUrl' | 'provider' | 'mediaIn'>;

/** What a wire format takes besides the kinds: the media types of each kind (absent: any of that kind). */
export type MediaFormats = Partial<Record<MediaKind, readonly string[]>>;

/** Images every vision API takes (OpenAI, Anthropic: PNG, JPEG, GIF, WebP). */
const COMMON_IMAGES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/**
 * OpenAI Chat Completions, as OpenAI and the AI SDK's chat converters send it: images as `image_url`,
 * WAV/MP3 as `input_audio`, PDF as a `file` part.
 */
export const OPENAI_CHAT_FORMATS: MediaFormats = {
  image: COMMON_IMAGES,
  // Exactly the types the AI SDK's converters map to an `input_audio` format (`wav`, `mp3`).
  audio: ['audio/wav', 'audio/mpeg', 'audio/mp3'],
  document: ['application/pdf'],
};

/** The OpenAI Responses API: images as `input_image`, PDF as `input_file` (no audio input). */
export const OPENAI_RESPONSES_FORMATS: MediaFormats = {
  image: COMMON_IMAGES,
  document: ['application/pdf'],
};

/** Anthropic Messages: `image` blocks (PNG, JPEG, GIF, WebP) and `document` blocks (PDF). */
export const ANTHROPIC_FORMATS: MediaFormats = { image: COMMON_IMAGES, document: ['application/pdf'] };

/** xAI: JPEG and PNG images only. */
export const XAI_FORMATS: MediaFormats = { image: ['image/jpeg', 'image/png'] };

/** Gemini takes every kind as `inlineData`; its own list of types is long and grows, so none is named. */
export const GEMINI_FORMATS: MediaFormats = {};

/** OpenAI-compatible servers: as OpenAI Chat, plus any video the model takes (sent as `video_url`). */
export const OPENAI_COMPATIBLE_FORMATS: MediaFormats = {
  image: [...COMMON_IMAGES, 'image/bmp'],
  audio: OPENAI_CHAT_FORMATS.audio!,
  document: ['application/pdf'],
};

/** The kinds in config order, for stable tables and messages. */
const KIND_ORDER: readonly MediaKind[] = ['image', 'audio', 'video', 'document'];

/** `media_in:` from the config when set, else the vendor's figure for the model. */
function withOverride(settings: MediaInputSettings, vendor: MediaInput): MediaInput {
  if (settings.mediaIn === undefined) return vendor;
  const kinds = KIND_ORDER.filter((k) => settings.mediaIn!.includes(k));
  return vendor.maxBytes === undefined ? { kinds } : { kinds, maxBytes: vendor.maxBytes };
}

/** OpenAI models that read no images or files at all (the GPT-3.5 family, o1-mini, o3-mini, GPT-4 0613). */
const OPENAI_TEXT_ONLY = /^(gpt-3\.5|o1-mini|o1-preview|o3-mini|gpt-4(-0613|-0314|-32k.*)?$)/;
/** OpenAI's audio chat models (`gpt-4o-audio-preview`, `gpt-audio`…): text and audio in, Chat Completions only. */
const OPENAI_AUDIO = /(^|-)audio(-|$)/;

/** Whether an OpenAI model is an audio chat model (the `openai` backend sends it through Chat Completions). */
export function isOpenAIAudioModel(model: string): boolean {
  return OPENAI_AUDIO.test(model.toLowerCase());
}

const OPENAI_LIMITS = { image: 20 * MB, audio: 25 * MB, document: 32 * MB } as const;

/**
 * OpenAI (and Azure OpenAI deployments of the same models): images and PDF for vision models, audio
 * for the audio chat models, nothing for the text-only families.
 */
export function openAIMediaIn(settings: MediaInputSettings): MediaInput {
  const model = settings.model.toLowerCase();
  const kinds: MediaKind[] = isOpenAIAudioModel(model)
    ? ['audio']
    : OPENAI_TEXT_ONLY.test(model)
      ? []
      : ['image', 'document'];
  return withOverride(settings, { kinds, maxBytes: OPENAI_LIMITS });
}

/**
 * Anthropic: every Claude 3+ model takes images (5 MB each through the API); PDF from Claude 3.5 on
 * (32 MB per request). Claude 2 and Instant read text only.
 */
export function claudeMediaIn(settings: MediaInputSettings): MediaInput {
  const model = settings.model.toLowerCase();
  const kinds: MediaKind[] = /^claude-(2|instant)/.test(model)
    ? []
    : /^claude-3-(opus|sonnet|haiku)/.test(model)
      ? ['image']
      : ['image', 'document'];
  return withOverride(settings, { kinds, maxBytes: { image: 5 * MB, document: 32 * MB } });
}

/** Gemini: images, audio, video and PDF, inline up to about 20 MB per request. */
export function geminiMediaIn(settings: MediaInputSettings): MediaInput {
  const inline = 20 * MB;
  return withOverride(settings, {
    kinds: ['image', 'audio', 'video', 'document'],
    maxBytes: { image: inline, audio: inline, video: inline, document: inline },
  });
}

/** xAI: images (JPEG/PNG, 10 MiB) for Grok 4 and the `-vision` models; Grok 3 and the code models read text. */
export function grokMediaIn(settings: MediaInputSettings): MediaInput {
  const model = settings.model.toLowerCase();
  const vision = (/vision/.test(model) || /^grok-4/.test(model)) && !/code/.test(model);
  return withOverride(settings, { kinds: vision ? ['image'] : [], maxBytes: { image: 10 * MB } });
}

/**
 * Any OpenAI-compatible server: images by default (what most served vision models take), OpenAI's own
 * figures when the server is OpenAI; `media_in:` says what another model takes (a Qwen-VL with video).
 */
export function openAICompatibleMediaIn(settings: MediaInputSettings, servesOpenAI: boolean): MediaInput {
  if (servesOpenAI) return openAIMediaIn(settings);
  return withOverride(settings, { kinds: ['image'] });
}

/** A backend without media input (harnesses, agents from other frameworks, the in-process GGUF model). */
export const NO_MEDIA_IN = (): MediaInput => ({ kinds: [] });

/**
 * Why a part cannot go to this model, or null when it can: its kind is not taken, its format is not
 * one the wire format carries, or it is larger than the vendor's limit.
 */
export type MediaGate = (part: MediaPart) => string | null;

/** The check a backend runs on each part, from what its model takes and its wire format's formats. */
export function mediaGate(input: MediaInput, formats: MediaFormats): MediaGate {
  return (part) => {
    if (!input.kinds.includes(part.kind)) return `this model does not take ${part.kind} files`;
    const types = formats[part.kind];
    if (types !== undefined && !types.includes(part.mediaType.toLowerCase()))
      return `this provider does not take ${part.mediaType} (it takes ${types.join(', ')})`;
    const limit = input.maxBytes?.[part.kind];
    if (limit !== undefined && part.data.byteLength > limit)
      return `larger than the provider's ${formatBytes(limit)} limit for ${part.kind} files`;
    return null;
  };
}

function formatBytes(bytes: number): string {
  if (bytes % MB === 0) return `${bytes / MB} MB`;
  return bytes < 1024 ? `${bytes} bytes` : `${Math.round(bytes / 1024)} KB`;
}
