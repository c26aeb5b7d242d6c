import { randomBytes } from 'node:crypto';
import {
  InvalidResponseDataError,
  JSONParseError,
  TypeValidationError,
  type LanguageModelV3FinishReason,
  type LanguageModelV3StreamPart,
  type LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { checkChunk, type ChatDelta, type ChatUsage, type ContentParts } from './chat-chunks.js';
import { ToolCallTracker } from './tool-call-tracker.js';

const FORBIDDEN_KEYS = /"(?:__proto__|constructor)"/;

/**
 * JSON as the AI SDK parses a provider's JSON: an object that would reach `__proto__` (or a
 * `constructor.prototype`) is refused, not merely parsed.
 */
function parseChunkJson(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  if (FORBIDDEN_KEYS.test(text)) refusePrototypeKeys(value);
  return value;
}

function refusePrototypeKeys(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key];
    if (
      key === '__proto__' ||
      (key === 'constructor' && typeof child === 'object' && child !== null && 'prototype' in child)
    )
      throw new SyntaxError('Object contains forbidden prototype property');
    refusePrototypeKeys(child);
  }
}

function finishReasonOf(raw: string): LanguageModelV3FinishReason {
  const unified =
    raw === 'stop'
      ? 'stop'
      : raw === 'length'
        ? 'length'
        : raw === 'content_filter'
          ? 'content-filter'
          : raw === 'function_call' || raw === 'tool_calls'
            ? 'tool-calls'
            : 'other';
  return { unified, raw };
}

function usageOf(usage: ChatUsage | undefined): LanguageModelV3Usage {
  if (usage === undefined)
    return {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    };
  const prompt = usage.prompt_tokens ?? 0;
  const completion = usage.completion_tokens ?? 0;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  return {
    inputTokens: { total: prompt, noCache: prompt - cached, cacheRead: cached, cacheWrite: undefined },
    outputTokens: { total: completion, text: Math.max(0, completion - reasoning), reasoning },
  };
}

/** Text and thinking of content sent as parts (Mistral's `thinking` parts hold text parts). */
function* contentPieces(content: ChatDelta['content']): Generator<{ reasoning: boolean; text: string }> {
  if (content == null) return;
  if (typeof content === 'string') {
    if (content.length > 0) yield { reasoning: false, text: content };
    return;
  }
  for (const part of content as ContentParts) {
    if (part.type === 'text' && typeof part.text === 'string') {
      if (part.text.length > 0) yield { reasoning: false, text: part.text };
    } else if (part.type === 'thinking' && Array.isArray(part.thinking)) {
      const text = (part.thinking as unknown[])
        .filter(
          (c): c is { text: string } =>
            typeof c === 'object' &&
            c !== null &&
            (c as { type?: unknown }).type === 'text' &&
            typeof (c as { text?: unknown }).text === 'string',
        )
        .map((c) => c.text)
        .join('');
      if (text.length > 0) yield { reasoning: true, text };
    }
  }
}

/**
 * Turns the data of a Chat Completions event stream into the AI SDK's stream parts, as
 * `@ai-sdk/openai-compatible`'s chat model does — the parts massgen reads: text and reasoning deltas,
 * tool calls (`tool-input-start` as a call is named, `tool-call` at the end), errors, and one `finish`.
 * `[DONE]` is skipped; a chunk that is not JSON or not a chunk becomes an `error` part; so does a
 * stream that ends without a finish reason.
 */
export class ChatStreamParts {
  private readonly tools: ToolCallTracker;
  private finishReason: LanguageModelV3FinishReason | undefined;
  private usage: ChatUsage | undefined;

  constructor(private readonly emit: (part: LanguageModelV3StreamPart) => void) {
    this.tools = new ToolCallTracker(emit, () => randomBytes(12).toString('base64url'));
  }

  /** One event's data. */
  data(text: string): void {
    if (text === '[DONE]') return;
    let value: unknown;
    try {
      value = parseChunkJson(text);
    } catch (cause) {
      this.fail(new JSONParseError({ text, cause }));
      return;
    }
    const checked = checkChunk(value);
    if (checked.kind === 'invalid') {
      this.fail(new TypeValidationError({ value, cause: new Error(checked.problem) }));
      return;
    }
    if (checked.kind === 'error') {
      this.fail(checked.error);
      return;
    }
    const { chunk } = checked;
    if (chunk.usage != null) this.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice?.finish_reason != null) this.finishReason = finishReasonOf(choice.finish_reason);
    const delta = choice?.delta;
    if (delta == null) return;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) this.emit({ type: 'reasoning-delta', id: 'reasoning-0', delta: reasoning });
    for (const piece of contentPieces(delta.content)) {
      this.emit(
        piece.reasoning
          ? { type: 'reasoning-delta', id: 'reasoning-0', delta: piece.text }
          : { type: 'text-delta', id: 'txt-0', delta: piece.text },
      );
    }
    for (const call of delta.tool_calls ?? []) this.tools.add(call);
  }

  /** The end of the stream: the tool calls, then `finish`. */
  end(): void {
    this.tools.end();
    if (this.finishReason === undefined) {
      this.fail(
        new InvalidResponseDataError({
          data: undefined,
          message: 'Response stream ended without a finish reason.',
        }),
      );
    }
    this.emit({
      type: 'finish',
      finishReason: this.finishReason ?? { unified: 'error', raw: undefined },
      usage: usageOf(this.usage),
    });
  }

  private fail(error: unknown): void {
    this.finishReason = { unified: 'error', raw: undefined };
    this.emit({ type: 'error', error });
  }
}
