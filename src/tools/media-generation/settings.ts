import type { MediaJob } from './media-tools.js';

/** Providers with media models in their AI SDK package, named as backend types. */
export type MediaProvider = 'openai' | 'azure_openai' | 'gemini' | 'grok';

/** One job's model and how to reach it (the key already resolved from the run's environment). */
export interface MediaModelSettings {
  provider: MediaProvider;
  /** The model id (Azure: the deployment name). */
  model: string;
  /** Never logged; sent only to `baseUrl`. */
  apiKey?: string;
  /** Default: the provider's public endpoint. */
  baseUrl?: string;
  headers?: Readonly<Record<string, string>>;
  /** Azure's `api-version`, when the endpoint named one. */
  apiVersion?: string;
  /**
   * The provider runs on this machine (a local gateway, a test server): the videos it makes are
   * downloaded from its own address, which the AI SDK otherwise refuses as a private one.
   */
  local?: boolean;
}

/** What {@link createMediaGenerationToolProvider} needs. */
export interface MediaGenerationSettings {
  /** The agent's workspace: generated files go to `generated/` in it, `transcribe` reads from it. */
  workspace: string;
  /** The jobs offered (a tool per job) and the model of each. */
  models: Partial<Record<MediaJob, MediaModelSettings>>;
  /** How often a video job is polled, in ms (default: the provider SDK's own). */
  pollIntervalMs?: number;
}
