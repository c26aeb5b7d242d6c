import type {
  LanguageModelV3Message,
  LanguageModelV3ReasoningPart,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import type { LanguageModelMiddleware } from 'ai';

/** One signed thinking block of a response, as Anthropic wants it back. */
interface ThinkingBlock {
  text: string;
  signature?: string;
  redactedData?: string;
}

/** Responses whose thinking is kept; only the current tool loop needs it, so a small bound suffices. */
const DEFAULT_LIMIT = 256;

/**
 * Keeps Claude's signed thinking blocks across the orchestrator's steps.
 *
 * With extended thinking on, Anthropic rejects a request whose last assistant turn calls tools without
 * the thinking blocks (and their signatures) that preceded those calls. Our provider-neutral history
 * has no place for them, so this middleware remembers each response's thinking under the ids of its
 * tool calls and puts it back, unchanged and first, into the assistant message that carries those
 * calls. One middleware per backend instance: the ids come from that backend's own responses.
 */
export function thinkingReplayMiddleware(limit: number = DEFAULT_LIMIT): LanguageModelMiddleware {
  const byToolCallId = new Map<string, readonly ThinkingBlock[]>();
  const remember = (ids: readonly string[], blocks: readonly ThinkingBlock[]) => {
    for (const id of ids) byToolCallId.set(id, blocks);
    // Maps iterate in insertion order, so the first keys are the oldest.
    for (const oldest of byToolCallId.keys()) {
      if (byToolCallId.size <= limit) break;
      byToolCallId.delete(oldest);
    }
  };

  return {
    specificationVersion: 'v3',
    transformParams: ({ params }) =>
      Promise.resolve({ ...params, prompt: params.prompt.map((m) => withThinking(m, byToolCallId)) }),
    wrapStream: async ({ doStream }) => {
      const result = await doStream();
      return { ...result, stream: result.stream.pipeThrough(recorder(remember)) };
    },
  };
}

/** Passes every part through, collecting signed thinking and client tool-call ids until `finish`. */
function recorder(
  remember: (ids: readonly string[], blocks: readonly ThinkingBlock[]) => void,
): TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart> {
  const open = new Map<string, ThinkingBlock>();
  const blocks: ThinkingBlock[] = [];
  const callIds: string[] = [];
  return new TransformStream({
    transform(part, controller) {
      switch (part.type) {
        case 'reasoning-start': {
          const block: ThinkingBlock = { text: '' };
          const redacted = anthropicString(part.providerMetadata, 'redactedData');
          if (redacted !== undefined) block.redactedData = redacted;
          open.set(part.id, block);
          blocks.push(block);
          break;
        }
        case 'reasoning-delta': {
          const block = open.get(part.id);
          if (block === undefined) break;
          block.text += part.delta;
          const signature = anthropicString(part.providerMetadata, 'signature');
          if (signature !== undefined) block.signature = signature;
          break;
        }
        case 'tool-call':
          if (part.providerExecuted !== true) callIds.push(part.toolCallId);
          break;
        case 'finish': {
          // Unsigned thinking cannot be replayed (Anthropic would reject it), so it is dropped.
          const signed = blocks.filter((b) => b.signature !== undefined || b.redactedData !== undefined);
          if (signed.length > 0 && callIds.length > 0) remember(callIds, signed);
          break;
        }
        default:
          break;
      }
      controller.enqueue(part);
    },
  });
}

/** The message with its remembered thinking prepended, when it calls tools and carries no reasoning yet. */
function withThinking(
  message: LanguageModelV3Message,
  byToolCallId: ReadonlyMap<string, readonly ThinkingBlock[]>,
): LanguageModelV3Message {
  if (message.role !== 'assistant' || message.content.some((part) => part.type === 'reasoning')) {
    return message;
  }
  for (const part of message.content) {
    if (part.type !== 'tool-call') continue;
    const blocks = byToolCallId.get(part.toolCallId);
    if (blocks === undefined) continue;
    return { ...message, content: [...blocks.map(toReasoningPart), ...message.content] };
  }
  return message;
}

function toReasoningPart(block: ThinkingBlock): LanguageModelV3ReasoningPart {
  const anthropic =
    block.signature !== undefined
      ? { signature: block.signature }
      : { redactedData: block.redactedData ?? '' };
  return { type: 'reasoning', text: block.text, providerOptions: { anthropic } };
}

function anthropicString(metadata: unknown, key: string): string | undefined {
  const anthropic = (metadata as { anthropic?: Record<string, unknown> } | undefined)?.anthropic;
  const value = anthropic?.[key];
  return typeof value === 'string' ? value : undefined;
}
