import type { LanguageModelV3 } from '@ai-sdk/provider';
import {
  jsonSchema,
  streamText,
  tool,
  type JSONSchema7,
  type JSONValue,
  type LanguageModelUsage,
  type ToolSet,
} from 'ai';
import type { Backend, ModelRequest, ModelStreamPart } from '../../types/backend.js';
import { ProviderError } from '../../types/errors.js';
import type { ToolDefinition } from '../../types/messages.js';
import type { TokenUsage } from '../../types/usage.js';
import { toModelMessages } from './convert-messages.js';
import { errorToThrow, type ProviderErrorContext } from './provider-errors.js';
import { untilAborted } from '../../util/abort.js';

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
}

/**
 * Wraps an AI SDK language model as a {@link Backend}: each `stream()` is exactly one model call
 * (`maxRetries: 0`, tools without `execute`, so the SDK neither retries nor runs tools), translated to
 * our {@link ModelStreamPart}s and ending with exactly one `finish` part.
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
  return {
    type: options.type,
    model: options.modelId,
    stream: (request) => streamOnce(options, errorContext, request),
  };
}

async function* streamOnce(
  options: LanguageModelBackendOptions,
  errorContext: ProviderErrorContext,
  request: ModelRequest,
): AsyncGenerator<ModelStreamPart> {
  const { signal } = request;
  signal.throwIfAborted();
  const tools = { ...toToolSet(request.tools), ...options.providerTools };
  const hasTools = Object.keys(tools).length > 0;
  const providerOptions = {
    ...(options.providerOptions === undefined
      ? {}
      : { [options.providerName]: options.providerOptions as Record<string, JSONValue> }),
  };
  for (const [key, value] of Object.entries(options.nestedProviderOptions ?? {})) {
    providerOptions[key] = { ...providerOptions[key], ...value };
  }
  let reader: ReadableStreamDefaultReader<FullStreamPart> | undefined;
  try {
    const result = streamText({
      model: options.model,
      messages: toModelMessages(request.messages),
      // Our system messages come from the orchestrator, not from untrusted input.
      allowSystemInMessages: true,
      ...(hasTools ? { tools } : {}),
      ...(request.tools.length > 0 && request.toolChoice !== undefined
        ? { toolChoice: request.toolChoice }
        : {}),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.maxTokens === undefined ? {} : { maxOutputTokens: options.maxTokens }),
      ...(Object.keys(providerOptions).length === 0 ? {} : { providerOptions }),
      maxRetries: 0,
      abortSignal: signal,
      // Errors arrive as `error` parts and are rethrown below; the default handler would print them.
      onError: () => {},
    });
    reader = result.fullStream.getReader();
    yield* modelStreamParts(reader, signal, options.type);
  } catch (error) {
    throw errorToThrow(error, signal, errorContext);
  } finally {
    // Not awaited: after an abort a pending read may only settle once the fetch has torn down.
    reader?.cancel().catch(() => {});
  }
}

/**
 * The AI SDK's full stream as massgen's stream parts. Calls of `ownTools` — tools that run inside the
 * model's own loop, like an AI SDK agent's — are reported as provider-executed, as built-in tools are.
 */
export async function* modelStreamParts(
  reader: ReadableStreamDefaultReader<FullStreamPart>,
  signal: AbortSignal,
  type: string,
  ownTools: ReadonlySet<string> = new Set(),
): AsyncGenerator<ModelStreamPart> {
  for (;;) {
    const next = await untilAborted(reader.read(), signal);
    if (next.done) break;
    const part = next.value;
    switch (part.type) {
      case 'text-delta':
        if (part.text !== '') yield { type: 'text-delta', text: part.text };
        break;
      case 'reasoning-delta':
        if (part.text !== '') yield { type: 'reasoning-delta', text: part.text };
        break;
      case 'tool-call':
        if (part.providerExecuted === true || ownTools.has(part.toolName)) {
          yield {
            type: 'provider-tool-call',
            callId: part.toolCallId,
            toolName: part.toolName,
            input: part.input,
          };
          break;
        }
        // Invalid calls (unparseable JSON, unknown tool) still carry `input`: the parsed value when it
        // parsed, else the raw string. The orchestrator answers them with a tool error.
        yield {
          type: 'tool-call',
          call: { id: part.toolCallId, name: part.toolName, arguments: part.input },
        };
        break;
      case 'tool-result':
      case 'tool-error':
        if (part.providerExecuted === true || ownTools.has(part.toolName)) {
          const failed = part.type === 'tool-error';
          yield {
            type: 'provider-tool-result',
            callId: part.toolCallId,
            toolName: part.toolName,
            output: failed ? String(part.error) : part.output,
            isError: failed,
          };
        }
        break;
      case 'finish':
        yield { type: 'finish', finishReason: part.finishReason, usage: toTokenUsage(part.totalUsage) };
        return;
      case 'error':
        throw part.error;
      case 'abort':
        throw signal.aborted ? signal.reason : new Error('the model call was aborted');
      default:
        // Start/end markers, tool-input streaming, the SDK's own tool-error for invalid calls, etc.
        break;
    }
  }
  throw new ProviderError(type, `${type}: the model stream ended without a finish event`, {
    retryable: true,
  });
}

type FullStreamPart =
  ReturnType<typeof streamText<ToolSet>>['fullStream'] extends ReadableStream<infer P> ? P : never;

export function toToolSet(definitions: readonly ToolDefinition[]): ToolSet {
  const tools: ToolSet = {};
  for (const definition of definitions) {
    // No `execute`: the SDK reports the call and stops; the orchestrator runs tools between steps.
    tools[definition.name] = tool({
      description: definition.description,
      inputSchema: jsonSchema(definition.parameters as JSONSchema7),
    });
  }
  return tools;
}

export function toTokenUsage(usage: LanguageModelUsage): TokenUsage {
  return {
    inputTokens: usage.inputTokens ?? 0,
    outputTokens: usage.outputTokens ?? 0,
    reasoningTokens: usage.outputTokenDetails?.reasoningTokens ?? 0,
    cachedInputTokens: usage.inputTokenDetails?.cacheReadTokens ?? 0,
  };
}
