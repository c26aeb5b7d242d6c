import type { ChatMessage, ToolCall, ToolDefinition } from './messages.js';
import type { TokenUsage } from './usage.js';

/** One streamed model call: the whole input the backend needs. */
export interface ModelRequest {
  messages: readonly ChatMessage[];
  tools: readonly ToolDefinition[];
  /** `required` asks the provider to force a tool call where it supports that. */
  toolChoice?: 'auto' | 'required' | 'none';
  /** Aborting stops the call at once; the stream then throws the signal's reason. */
  signal: AbortSignal;
}

/** What a backend streams back. Tool calls arrive whole (backends assemble streamed argument chunks). */
export type ModelStreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call'; call: ToolCall }
  | { type: 'finish'; finishReason: string; usage: TokenUsage };

/**
 * A model provider. A backend does exactly one streamed model call per {@link Backend.stream};
 * the orchestrator owns the agent loop, tool execution and retries.
 *
 * Errors: throw {@link ProviderError} (from `./errors`) with `retryable` set so the orchestrator
 * knows whether to retry with backoff.
 */
export interface Backend {
  /** The config `type`, e.g. `chatcompletion`. */
  readonly type: string;
  readonly model: string;
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
}

/** Resolved settings a backend factory receives from the app (secrets already resolved from env). */
export interface BackendSettings {
  type: string;
  model: string;
  baseUrl?: string;
  /** Already resolved; never logged. */
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
  /** Opaque provider-only options, passed through to the provider untouched. */
  providerOptions: Record<string, unknown>;
  /** Extra HTTP headers for HTTP backends. */
  headers?: Record<string, string>;
}

/** One registry entry: how to build a backend of one `type`. */
export interface BackendFactory {
  type: string;
  /** One line for `--help` and docs. */
  description: string;
  /** Environment variable holding the API key when `api_key` is not set (null: no key needed). */
  apiKeyEnv: string | null;
  /** Default `base_url` when the config gives none. */
  defaultBaseUrl?: string;
  /** True when the backend can run without any API key (local servers). */
  keyOptional?: (settings: BackendSettings) => boolean;
  create(settings: BackendSettings): Backend;
}
