import { z } from 'zod';

/** Providers whose AI SDK package makes images, speech, transcripts or videos. */
export const MEDIA_PROVIDER_TYPES = ['openai', 'azure_openai', 'gemini', 'grok'] as const;
export type MediaProviderType = (typeof MEDIA_PROVIDER_TYPES)[number];

/** One kind's model: which model, and (when not the agent's own provider) where and with which key. */
const MediaModelConfigSchema = z.strictObject({
  /** The provider's model id (Azure: the deployment name), e.g. `gpt-image-1`, `imagen-4.0-generate-001`. */
  model: z.string().min(1, { error: 'must not be empty' }),
  /** The provider, as a backend type; default: the agent's own backend type. */
  type: z.enum(MEDIA_PROVIDER_TYPES).optional(),
  /** The provider's endpoint; default: the agent's `base_url` when `type` is its own, else the provider's. */
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  /** The environment variable holding the key (never the key itself); default: the provider's usual one. */
  api_key_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'must be an environment variable name, e.g. OPENAI_API_KEY' })
    .optional(),
});
export type MediaModelConfig = z.output<typeof MediaModelConfigSchema>;

/**
 * `backend.media_generation`: the model each media tool uses (docs/multimodal.md, "Media out"). A kind
 * left out uses the agent's own provider's default model for it.
 */
export const MediaGenerationConfigSchema = z.strictObject({
  image: MediaModelConfigSchema.optional(),
  speech: MediaModelConfigSchema.optional(),
  transcription: MediaModelConfigSchema.optional(),
  video: MediaModelConfigSchema.optional(),
});
export type MediaGenerationConfig = z.output<typeof MediaGenerationConfigSchema>;
