import type {
  Experimental_VideoModelV3,
  ImageModelV3,
  SpeechModelV3,
  TranscriptionModelV3,
} from '@ai-sdk/provider';
import type { MediaJob } from './media-tools.js';
import { openAIVideoModel } from './openai-video-model.js';
import type { MediaModelSettings, MediaProvider } from './settings.js';

/**
 * The models each provider's AI SDK package makes, and the one used when the config names none. A job
 * a provider has no entry for cannot be done there (the app turns that into a config error).
 * Azure has no defaults: its models are the user's own deployments.
 */
export const DEFAULT_MEDIA_MODELS: Readonly<Record<MediaProvider, Partial<Record<MediaJob, string>>>> = {
  openai: { image: 'gpt-image-1', speech: 'gpt-4o-mini-tts', transcription: 'whisper-1', video: 'sora-2' },
  azure_openai: {},
  gemini: { image: 'imagen-4.0-generate-001', video: 'veo-3.0-fast-generate-001' },
  grok: { image: 'grok-imagine-image', video: 'grok-imagine-video' },
};

/** The jobs a provider can do at all (with a model named in the config). */
export const MEDIA_JOBS_BY_PROVIDER: Readonly<Record<MediaProvider, readonly MediaJob[]>> = {
  openai: ['image', 'speech', 'transcription', 'video'],
  azure_openai: ['image', 'speech', 'transcription'],
  gemini: ['image', 'transcription', 'video'],
  grok: ['image', 'video'],
};

/** The environment variables each provider's key is read from, as its backend reads them. */
export const MEDIA_KEY_ENVS: Readonly<Record<MediaProvider, readonly string[]>> = {
  openai: ['OPENAI_API_KEY'],
  azure_openai: ['AZURE_OPENAI_API_KEY'],
  gemini: ['GOOGLE_API_KEY', 'GEMINI_API_KEY'],
  grok: ['XAI_API_KEY'],
};

interface Providers {
  image(model: string): ImageModelV3;
  speech?(model: string): SpeechModelV3;
  transcription?(model: string): TranscriptionModelV3;
  video?(model: string): Experimental_VideoModelV3;
}

/**
 * The AI SDK provider for one model's settings. The packages load on first use, so an agent that
 * never generates media costs nothing. The key is always passed (never undefined): the SDKs would
 * otherwise read it from the process environment behind the run's back.
 */
async function providerFor(settings: MediaModelSettings): Promise<Providers> {
  const apiKey = settings.apiKey ?? '';
  const headers = settings.headers === undefined ? {} : { headers: { ...settings.headers } };
  switch (settings.provider) {
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      const openai = createOpenAI({
        apiKey,
        ...headers,
        ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
      });
      return {
        image: (model) => openai.image(model),
        speech: (model) => openai.speech(model),
        transcription: (model) => openai.transcription(model),
        // Sora: @ai-sdk/openai has no video models, so massgen's own over the same API.
        video: (model) =>
          openAIVideoModel(model, {
            baseUrl: settings.baseUrl ?? 'https://api.openai.com/v1',
            ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
            ...(settings.headers ? { headers: settings.headers } : {}),
          }),
      };
    }
    case 'azure_openai': {
      if (settings.baseUrl === undefined)
        throw new Error('azure_openai needs base_url (your resource endpoint)');
      // The app has made `baseUrl` what `createAzure` expects (the azure backend's `azureEndpoint`).
      const { createAzure } = await import('@ai-sdk/azure');
      return createAzure({
        apiKey,
        ...headers,
        baseURL: settings.baseUrl,
        ...(settings.apiVersion === undefined ? {} : { apiVersion: settings.apiVersion }),
      });
    }
    case 'gemini': {
      const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
      return createGoogleGenerativeAI({
        apiKey,
        ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
        headers: {
          ...settings.headers,
          // Without a key send no `x-goog-api-key` at all rather than an empty one (as the gemini backend does).
          ...(settings.apiKey === undefined ? { 'x-goog-api-key': undefined } : {}),
        } as Record<string, string>,
      });
    }
    case 'grok': {
      const { createXai } = await import('@ai-sdk/xai');
      return createXai({ apiKey, ...headers, ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}) });
    }
  }
}

const missing = (settings: MediaModelSettings, job: string): Error =>
  new Error(`the ${settings.provider} provider has no ${job} models in its AI SDK package`);

export async function imageModel(settings: MediaModelSettings): Promise<ImageModelV3> {
  return (await providerFor(settings)).image(settings.model);
}

export async function speechModel(settings: MediaModelSettings): Promise<SpeechModelV3> {
  const provider = await providerFor(settings);
  if (!provider.speech) throw missing(settings, 'speech');
  return provider.speech(settings.model);
}

export async function transcriptionModel(settings: MediaModelSettings): Promise<TranscriptionModelV3> {
  const provider = await providerFor(settings);
  if (!provider.transcription) throw missing(settings, 'transcription');
  return provider.transcription(settings.model);
}

export async function videoModel(settings: MediaModelSettings): Promise<Experimental_VideoModelV3> {
  const provider = await providerFor(settings);
  if (!provider.video) throw missing(settings, 'video');
  return provider.video(settings.model);
}
