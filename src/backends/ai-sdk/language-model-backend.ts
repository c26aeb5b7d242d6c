import type {
  JSONValue,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3ProviderTool,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import type { ToolSet } from 'ai';
import type { Backend, ModelRequest, ModelStreamPart } from '../../types/backend.js';
import type { TokenUsage } from '../../types/usage.js';
import { toLanguageModelPrompt, type MediaConversion } from './convert-messages.js';
import { toCallTools, trimNativeScreenshots, type NativeToolFactory } from './native-tools.js';
import { errorToThrow, type ProviderErrorContext } from './provider-errors.js';
import { untilAborted } from '../../util/abort.js';
import { deltaPart, readStreamParts, toolCallPart, type PartReader } from './read-stream-parts.js';

/** Everything {@link createLanguageModelBackend} needs; the model is any AI SDK `LanguageModelV3`. */
export interface LanguageModelBackendOptions {
  /** Our config `type`, e.g. `chatcompletion`; prefixes error messages. */
  type: string;
  modelId: string;
  model: LanguageModelV3;
  /**
   * The AI SDK provider-options key of `model` (for `createOpenAICompatible` it is the `name`); our flat
   * `providerOptions` bag is handed to the provider under this key.
   */
  providerName: string;
  temperature?: number;
  maxTokens?: number;
  /** Opaque provider-only options, passed through untouched. */
  providerOptions?: Record<string, unknown>;
  /** Named in network-failure messages. */
  baseUrl?: string;
  /** Values to scrub from error messages (the API key). */
  secrets?: readonly string[];
  /**
   * Built-in tools the provider executes itself (e.g. `openai.tools.webSearch()`), offered on every
   * call next to the orchestrator's function tools. Their calls and results stream as
   * `provider-tool-*` parts; the orchestrator shows them and never executes them.
   */
  providerTools?: ToolSet;
  /** Provider options in the AI SDK's nested form (`{ openai: {...} }`), merged over the flat bag. */
  nestedProviderOptions?: Record<string, Record<string, JSONValue>>;
  /**
   * Which media parts may reach the wire and where tool media goes; without it every part is sent
   * (the core already shows each agent only the kinds its model takes).
   */
  media?: MediaConversion;
  /**
   * The vendor's own tool for a definition marked `native` (Claude's computer tool), or undefined to
   * send it as a function tool. Such tools' results keep their pictures inside the tool result.
   */
  nativeTool?: NativeToolFactory;
  /**
   * Opens a call without the model's `doStream` (its parts read straight off the response), for a model
   * whose stream pipeline costs more than the call itself: the Chat Completions reader.
   */
  openStream?: (call: LanguageModelV3CallOptions) => Promise<PartReader<LanguageModelV3StreamPart>>;
}

/**
 * Wraps an AI SDK language model as a {@link Backend}: each `stream()` is exactly one `doStream` call of
 * the model (the provider-level interface: no retries, no tool execution, no step loop — the orchestrator
 * owns all three), translated to our {@link ModelStreamPart}s and ending with exactly one `finish` part.
 *
 * Calling the model directly rather than through `streamText` keeps the `ai` package (and the stream
 * stages it adds to every chunk) out of a run: measurably less memory and CPU per streamed token.
 *
 * Errors are thrown as `ProviderError`; when `request.signal` aborts, the stream rejects promptly with
 * `signal.reason` itself.
 */
export function createLanguageModelBackend(options: LanguageModelBackendOptions): Backend {
  const errorContext: ProviderErrorContext = {
    provider: options.type,
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
  };
  // The same on every call of this backend.
  const fixed: FixedCallParts = {
    providerTools: toProviderTools(options.providerTools),
    providerOptions: mergedProviderOptions(options),
  };
  return {
    type: options.type,
    model: options.modelId,
    stream: (request) => streamOnce(options, fixed, errorContext, request),
  };
}

interface FixedCallParts {
  providerTools: LanguageModelV3ProviderTool[];
  providerOptions: Record<string, Record<string, JSONValue>>;
}

/** The flat provider-options bag under the provider's key, with the nested form merged over it. */
function mergedProviderOptions(
  options: LanguageModelBackendOptions,
): Record<string, Record<string, JSONValue>> {
  const merged: Record<string, Record<string, JSONValue>> = {
    ...(options.providerOptions === undefined
      ? {}
      : { [options.providerName]: options.providerOptions as Record<string, JSONValue> }),
  };
  for (const [key, value] of Object.entries(options.nestedProviderOptions ?? {})) {
    merged[key] = { ...merged[key], ...value };
  }
  return merged;
}

async function* streamOnce(
  options: LanguageModelBackendOptions,
  { providerTools, providerOptions }: FixedCallParts,
  errorContext: ProviderErrorContext,
  request: ModelRequest,
): AsyncGenerator<ModelStreamPart> {
  const { signal } = request;
  signal.throwIfAborted();
  const { tools: requestTools, nativeNames } = toCallTools(request.tools, options.nativeTool);
  const tools = [...requestTools, ...providerTools];
  const media: MediaConversion | undefined =
    nativeNames.size === 0
      ? options.media
      : {
          ...options.media,
          keepsMediaInResult: (message) =>
            nativeNames.has(message.toolName) || options.media?.keepsMediaInResult?.(message) === true,
        };
  const call: LanguageModelV3CallOptions = {
    prompt: toLanguageModelPrompt(trimNativeScreenshots(request.messages, nativeNames), media),
    ...(tools.length > 0 ? { tools, toolChoice: toolChoiceOf(request) } : {}),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.maxTokens === undefined ? {} : { maxOutputTokens: options.maxTokens }),
    ...(Object.keys(providerOptions).length === 0 ? {} : { providerOptions }),
    abortSignal: signal,
  };
  let reader: PartReader<LanguageModelV3StreamPart> | undefined;
  try {
    const opened = options.openStream
      ? options.openStream(call)
      : Promise.resolve(options.model.doStream(call)).then(({ stream }) => stream.getReader());
    // The response has begun (its status and headers came): a failure from here on lost it mid-way.
    reader = await untilAborted(opened, signal);
    yield* readStreamParts(reader, signal, options.type, translateModelPart);
  } catch (error) {
    throw errorToThrow(error, signal, { ...errorContext, responseStarted: reader !== undefined });
  } finally {
    // Not awaited: after an abort a pending read may only settle once the fetch has torn down.
    reader?.cancel().catch(() => {});
  }
}

/** One of a model's `doStream` parts as massgen's stream part. */
function translateModelPart(part: LanguageModelV3StreamPart): ModelStreamPart | null {
  switch (part.type) {
    case 'text-delta':
      return deltaPart('text', part.delta);
    case 'reasoning-delta':
      return deltaPart('reasoning', part.delta);
    case 'tool-call':
      return toolCallPart(
        part.providerExecuted === true,
        part.toolCallId,
        part.toolName,
        parseToolInput(part.input),
      );
    case 'tool-input-start':
      // The model began writing a call's arguments: the orchestrator shows it (e.g. "voting").
      return part.providerExecuted === true
        ? null
        : { type: 'tool-input-start', callId: part.id, toolName: part.toolName };
    case 'tool-result':
      return {
        type: 'provider-tool-result',
        callId: part.toolCallId,
        toolName: part.toolName,
        output: part.result,
        isError: part.isError === true,
      };
    case 'finish':
      return { type: 'finish', finishReason: part.finishReason.unified, usage: toTokenUsage(part.usage) };
    case 'error':
      throw part.error;
    default:
      // Start/end markers, tool-input streaming, metadata, sources, raw chunks.
      return null;
  }
}

/**
 * A tool call's JSON input, parsed. An empty input means "no arguments"; one that does not parse stays
 * the raw string, so the orchestrator answers it with a tool error and the model sees what it sent.
 */
function parseToolInput(input: string): unknown {
  if (input.trim() === '') return {};
  try {
    return JSON.parse(input) as unknown;
  } catch {
    return input;
  }
}

/** Built-in tools (`openai.tools.webSearch()`, …) as the provider-tool entries of a call. */
function toProviderTools(tools: ToolSet | undefined): LanguageModelV3ProviderTool[] {
  const entries: LanguageModelV3ProviderTool[] = [];
  for (const [name, tool] of Object.entries(tools ?? {})) {
    if (tool.type !== 'provider') continue;
    entries.push({ type: 'provider', name, id: tool.id, args: tool.args });
  }
  return entries;
}

/** The request's choice applies to its function tools; with built-in tools alone the model decides. */
function toolChoiceOf(request: ModelRequest): LanguageModelV3CallOptions['toolChoice'] {
  return { type: request.tools.length > 0 ? (request.toolChoice ?? 'auto') : 'auto' };
}

function toTokenUsage(usage: LanguageModelV3Usage): TokenUsage {
  return {
    inputTokens: usage.inputTokens.total ?? 0,
    outputTokens: usage.outputTokens.total ?? 0,
    reasoningTokens: usage.outputTokens.reasoning ?? 0,
    cachedInputTokens: usage.inputTokens.cacheRead ?? 0,
  };
}
