import {
  jsonSchema,
  tool,
  type JSONSchema7,
  type LanguageModelUsage,
  type streamText,
  type ToolSet,
} from 'ai';
import type { ModelStreamPart } from '../../types/backend.js';
import type { ToolDefinition } from '../../types/messages.js';
import type { TokenUsage } from '../../types/usage.js';
import { deltaPart, readStreamParts, toolCallPart } from './read-stream-parts.js';

// The `ai` package's high-level stream (`streamText`, an agent's `stream()`) as massgen's stream parts.
// Only the AI SDK agent adapter needs it: massgen's own backends call the provider's `doStream`
// directly (language-model-backend.ts), so a run without such an agent never loads `ai`.

/**
 * The AI SDK's full stream as massgen's stream parts. Calls of `ownTools` — tools that run inside the
 * model's own loop, like an AI SDK agent's — are reported as provider-executed, as built-in tools are.
 */
export function modelStreamParts(
  reader: ReadableStreamDefaultReader<FullStreamPart>,
  signal: AbortSignal,
  type: string,
  ownTools: ReadonlySet<string> = new Set(),
): AsyncGenerator<ModelStreamPart> {
  const shownOnly = (part: { providerExecuted?: boolean; toolName: string }) =>
    part.providerExecuted === true || ownTools.has(part.toolName);
  return readStreamParts(reader, signal, type, (part) => {
    switch (part.type) {
      case 'text-delta':
        return deltaPart('text', part.text);
      case 'reasoning-delta':
        return deltaPart('reasoning', part.text);
      case 'tool-call':
        return toolCallPart(shownOnly(part), part.toolCallId, part.toolName, part.input);
      case 'tool-result':
      case 'tool-error': {
        if (!shownOnly(part)) return null;
        const failed = part.type === 'tool-error';
        return {
          type: 'provider-tool-result',
          callId: part.toolCallId,
          toolName: part.toolName,
          output: failed ? String(part.error) : part.output,
          isError: failed,
        };
      }
      case 'finish':
        return { type: 'finish', finishReason: part.finishReason, usage: toTokenUsage(part.totalUsage) };
      case 'error':
        throw part.error;
      case 'abort':
        throw signal.aborted ? signal.reason : new Error('the model call was aborted');
      default:
        // Start/end markers, tool-input streaming, the SDK's own tool-error for invalid calls, etc.
        return null;
    }
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
