import type { ChatMessage, ToolCall, ToolDefinition } from './messages.js';
import type { TokenUsage } from './usage.js';
import type { MediaKind } from './media.js';

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
  /**
   * Optional: the model began writing a tool call whose arguments are still streaming (the call itself
   * follows as `tool-call`). Lets views show what an agent is composing, e.g. a vote.
   */
  | { type: 'tool-input-start'; callId: string; toolName: string }
  /** A built-in tool the provider runs itself (web search, code execution): shown, never executed by us. */
  | { type: 'provider-tool-call'; callId: string; toolName: string; input: unknown }
  | { type: 'provider-tool-result'; callId: string; toolName: string; output: unknown; isError: boolean }
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
  /** Ends what the backend keeps running between calls (a coding-agent harness), at the end of the run. */
  close?(): Promise<void>;
}

/** Provider features a config can ask for; each backend declares which it supports. */
export interface BackendFeatures {
  /** Provider-side web search (OpenAI web search, Anthropic web search, Google Search grounding, xAI live search). */
  webSearch?: boolean;
  /** Provider-side code execution (OpenAI code interpreter, Anthropic code execution, Gemini code execution). */
  codeExecution?: boolean;
  /** Reasoning effort and summaries (OpenAI reasoning models, Grok). */
  reasoning?: { effort?: 'minimal' | 'low' | 'medium' | 'high'; summary?: 'auto' | 'concise' | 'detailed' };
  /** Output verbosity (OpenAI GPT-5 family). */
  textVerbosity?: 'low' | 'medium' | 'high';
  /** Extended thinking: a token budget (Anthropic, Gemini) and whether thoughts are returned (Gemini). */
  thinking?: { budgetTokens?: number; includeThoughts?: boolean };
}

/** Settings of the in-process `local` backend (a GGUF model run by llama.cpp). */
export interface LocalModelSettings {
  /** CPU threads for generation; the factory picks the machine's best when unset. */
  threads?: number;
  /** Each agent's context window in tokens (memory grows with it per agent); default: the model's, capped. */
  contextSize?: number;
  /** `auto` (default) uses a GPU when the prebuilt binaries support one; `false` forces CPU. */
  gpu?: 'auto' | 'cuda' | 'vulkan' | 'metal' | false;
  /** Where downloaded models are cached (`~/.cache/massgen/models` or `MASSGEN_MODEL_DIR`). */
  modelDir: string;
  /** Base URL of the model hub for `hf:` references (tests point it at a local server). */
  hubEndpoint: string;
  /** The hub's access token (`HF_TOKEN` of the run's env), sent only to `hubEndpoint`; never logged. */
  hubToken?: string;
}

/** Progress of a model download, for front ends to draw a progress bar. */
export interface DownloadProgress {
  file: string;
  receivedBytes: number;
  /** Null when the server did not say. */
  totalBytes: number | null;
  bytesPerSecond: number;
  /** Null when unknown. */
  secondsLeft: number | null;
  done: boolean;
}

/** What a factory's `prepare` may use. */
export interface PrepareContext {
  onProgress?: (progress: DownloadProgress) => void;
  signal?: AbortSignal;
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
  /** A named preset of the backend (e.g. `groq` for `chatcompletion`). */
  provider?: string;
  features?: BackendFeatures;
  /** Extra request-body fields for local servers (`top_k`, `repetition_penalty`, `chat_template_kwargs`). */
  extraBody?: Record<string, unknown>;
  /**
   * `media_in:` from the config: the media kinds this model takes, replacing the backend's own figure
   * (an OpenAI-compatible server whose model reads video, or one that reads no images).
   */
  mediaIn?: readonly MediaKind[];
  /** For the `local` backend only. */
  local?: LocalModelSettings;
  /** For coding-agent harnesses (`claude_code`, `codex`): where they work and what they may do. */
  harness?: HarnessSettings;
  /**
   * For agents from other frameworks: the object the config's `module` exports under `export` — or, for
   * agents massgen drives through an adapter (Python agents, `adapters:`), the {@link AgentAdapter}.
   */
  external?: { agent: unknown; module: string; export: string; framework?: string };
  /**
   * The same object for every agent of one run (a fresh one per run): what backends whose agents act
   * together key their shared state by — the scripted `demo` team keeps its cues there.
   */
  team?: object;
}

/** A coding-agent harness's workspace, rules and options (MassGen's `claude_code` keys). */
export interface HarnessSettings {
  /** The agent's workspace: the harness's working directory; its own home is `<workspace>/.harness-home`. */
  workspace: string;
  /** Whether the harness may write `path` now (the workspace and presenter-only context paths). */
  checkWrite(
    path: string,
    phase: 'coordination' | 'presentation',
  ): Promise<{ allowed: true } | { allowed: false; reason: string }>;
  /** The run's environment: the harness gets PATH and its own key from it, nothing else. */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * The command prefix that runs a harness process inside massgen's OS sandbox for `phase` (bubblewrap's
   * arguments ending in `--`; `readable` extra folders it must read), or undefined where there is none.
   */
  sandboxed?(phase: 'coordination' | 'presentation', readable: readonly string[]): string[] | undefined;
  permissionMode?: 'default' | 'acceptEdits' | 'bypassPermissions' | 'plan';
  allowedTools?: readonly string[];
  disallowedTools?: readonly string[];
  systemPrompt?: string;
  appendSystemPrompt?: string;
  maxThinkingTokens?: number;
}

/** What a backend can do; asking for an unsupported feature is a config error naming the backend. */
export interface BackendCapabilities {
  streaming: boolean;
  tools: boolean;
  webSearch: boolean;
  codeExecution: boolean;
  reasoning: boolean;
  imagesIn: boolean;
}

/** A named preset of a backend: its own default base URL and key variable. */
export interface BackendPreset {
  name: string;
  description: string;
  baseUrl: string;
  /** Null: no key needed. */
  apiKeyEnv: string | null;
  /** Hosts (exact or suffix) whose `base_url` selects this preset when no `provider:` is given. */
  hosts?: readonly string[];
}

/** One registry entry: how to build a backend of one `type`. */
export interface BackendFactory {
  type: string;
  /** One line for `--list-backends` and docs. */
  description: string;
  capabilities: BackendCapabilities;
  /**
   * Environment variables that may hold the API key, in order of preference; empty when the backend
   * needs no key for these settings (e.g. a local server).
   */
  apiKeyEnvs(settings: Pick<BackendSettings, 'baseUrl' | 'provider'>): readonly string[];
  /** Default `base_url` when the config gives none. */
  defaultBaseUrl(settings: Pick<BackendSettings, 'provider'>): string | undefined;
  /** True when these settings can run without any API key (e.g. a loopback server). */
  keyOptional?(settings: Pick<BackendSettings, 'baseUrl' | 'provider'>): boolean;
  /** Named presets, for `provider:` validation and `--list-backends`. */
  presets?: readonly BackendPreset[];
  /**
   * Work to do once before any agent starts (e.g. download and check a model file). Throws a
   * `ConfigError` or `ProviderError` with one clear line when the backend cannot run.
   */
  prepare?(settings: BackendSettings, context: PrepareContext): Promise<void>;
  create(settings: BackendSettings): Backend;
  /**
   * The agent brings its own model (an agent from another framework): `model` is optional and only a
   * label; `module` and `export` name the agent.
   */
  external?: true;
  /**
   * Said at the start of every run with agents on this backend (every view shows a run's warnings):
   * `message` gets those agents' ids. The scripted `demo` team says it is scripted this way.
   */
  notice?: { code: string; message: (agents: readonly string[]) => string };
  /** With `external`: the agent is found without a `module:` (AG2's settings, a named framework). */
  moduleOptional?: true;
  /** A coding-agent harness: it needs a workspace (`cwd:`) and gets {@link BackendSettings.harness}. */
  harness?: true;
  /** The model used when the config names none (coding-agent harnesses, as MassGen does). */
  defaultModel?: string;
  /** The only model names this backend takes, when it has a closed list (the scripted `demo` team). */
  models?: readonly string[];
  /**
   * The media kinds the model of these settings takes as input parts, and the largest file of each
   * kind its provider accepts (`settings.mediaIn`, the config's `media_in:`, replaces the kinds).
   * Absent: images only when `capabilities.imagesIn`, else none.
   */
  mediaIn?(settings: Pick<BackendSettings, 'model' | 'baseUrl' | 'provider' | 'mediaIn'>): MediaInput;
}

/** What one model takes besides text (see {@link BackendFactory.mediaIn}). */
export interface MediaInput {
  kinds: readonly MediaKind[];
  /** Bytes per file, by kind; a kind without a figure has no limit of its own. */
  maxBytes?: Partial<Record<MediaKind, number>>;
}

/**
 * An agent that takes one massgen step per call: the conversation and massgen's tools in, its words and
 * its calls of massgen's tools out — a {@link Backend} without a model of its own. What a user's adapter
 * (`adapters:` in the config) makes, and what Python agents are on the TypeScript side.
 */
export interface AgentAdapter {
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
  /** Ends what the adapter started (a process, a connection), at the end of the run. */
  close?(): Promise<void>;
}
