import { z } from 'zod';
import type { ChatMessage, ChatRunPart } from '../../app/index.js';
import type { TokenUsage } from '../../types/usage.js';

/**
 * OpenAI's Chat Completions wire format, as far as `massgen serve` speaks it: the request checked at
 * the boundary, and the bodies and chunks it answers with. Sampling options (`temperature`, …) are
 * accepted and ignored: each agent's model settings come from the config.
 */

const TextPartSchema = z.looseObject({ type: z.literal('text'), text: z.string() });
const PartSchema = z.looseObject({ type: z.string() });

const MessageSchema = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(PartSchema), z.null()]).optional(),
});

/** The body of `POST /v1/chat/completions`. */
export const ChatCompletionRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(MessageSchema).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  /** OpenAI's "n": only one choice exists, the team's answer. */
  n: z.literal(1).nullish(),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

/** An error the client caused or the server met, in OpenAI's error-body format. */
export class WireError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly code: string,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'WireError';
  }

  body() {
    return { error: { message: this.message, type: this.type, code: this.code, param: this.param } };
  }
}

export const badRequest = (message: string, param: string | null = null) =>
  new WireError(400, message, 'invalid_request_error', 'invalid_request', param);

/** The request's messages as text, or a {@link WireError} naming the first part that is not text. */
export function messagesOf(request: ChatCompletionRequest): ChatMessage[] {
  return request.messages.map((message, i) => {
    const role = message.role === 'function' ? 'tool' : message.role;
    const content = message.content ?? '';
    if (typeof content === 'string') return { role, content };
    const texts = content.map((part, j) => {
      const text = TextPartSchema.safeParse(part);
      if (text.success) return text.data.text;
      throw badRequest(
        `messages[${i}].content[${j}]: only text parts are supported, not "${part.type}"`,
        `messages[${i}].content[${j}]`,
      );
    });
    return { role, content: texts.join('\n') };
  });
}

/** OpenAI's usage object for the summed usage of every agent. */
export function wireUsage(usage: TokenUsage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

/** What every body and chunk of one completion shares. */
export interface CompletionHead {
  id: string;
  created: number;
  model: string;
}

/** A streamed chunk: one delta, or the finish reason, or (with `choices: []`) the usage. */
export function chunk(
  head: CompletionHead,
  delta: { role?: 'assistant'; content?: string; reasoning_content?: string },
  finishReason: 'stop' | null = null,
) {
  return {
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

export function usageChunk(head: CompletionHead, usage: TokenUsage) {
  return {
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices: [],
    usage: wireUsage(usage),
  };
}

/** The delta a part of the run becomes: the trace as `reasoning_content`, the answer as `content`. */
export const deltaOf = (part: ChatRunPart) =>
  part.type === 'text' ? { content: part.text } : { reasoning_content: part.text };

/** The whole, non-streamed completion. */
export function completion(
  head: CompletionHead,
  answer: string,
  trace: string,
  usage: TokenUsage,
  run: { runId: string; winnerId: string | null; durationMs: number },
) {
  return {
    id: head.id,
    object: 'chat.completion',
    created: head.created,
    model: head.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answer, reasoning_content: trace, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: wireUsage(usage),
    /** Not OpenAI's: which run this was, for the logs in `.massgen/massgen_logs`. */
    massgen: { run_id: run.runId, winner: run.winnerId, duration_ms: run.durationMs },
  };
}
