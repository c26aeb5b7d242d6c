import type { Backend } from '../types/backend.js';
import type { CompressionRequest, CompressionResult, ContextCompressor } from '../types/compression.js';
import { emptyUsage, type TokenUsage } from '../types/usage.js';
import { planCompression } from './plan.js';
import { freshNonce, summaryMessage, summaryRequest } from './summary-prompt.js';

/** MassGen's defaults (`memory.compression`): compress past 75 % of the window, down to 40 %. */
export const DEFAULT_TRIGGER_THRESHOLD = 0.75;
export const DEFAULT_TARGET_RATIO = 0.4;
/** The summary gets a quarter of the target, but never more than this many tokens. */
const MAX_SUMMARY_TOKENS = 2_000;
/** The model's tool calls that are part of the protocol: never summarised away. */
const PROTOCOL_TOOLS: ReadonlySet<string> = new Set(['new_answer', 'vote', 'submit_checklist']);

export interface CompressorOptions {
  /** The model that writes summaries: the agent's own, or `memory.compression.model`'s. */
  backend: Backend;
  triggerThreshold?: number;
  targetRatio?: number;
  /** The markers' tag, for tests; fresh per compression otherwise. */
  nonce?: () => string;
}

/**
 * A {@link ContextCompressor} that asks `backend` for the summary: older steps go to it as quoted data
 * and come back as one quoted summary message (docs/compression.md).
 */
export function createCompressor(options: CompressorOptions): ContextCompressor {
  const nonce = options.nonce ?? freshNonce;
  return {
    triggerThreshold: options.triggerThreshold ?? DEFAULT_TRIGGER_THRESHOLD,
    targetRatio: options.targetRatio ?? DEFAULT_TARGET_RATIO,
    async compress(request: CompressionRequest): Promise<CompressionResult | null> {
      const estimate = request.estimate;
      const summaryTokens = Math.max(100, Math.min(MAX_SUMMARY_TOKENS, Math.floor(request.targetTokens / 4)));
      const plan = planCompression(request.messages, {
        protectedTools: PROTOCOL_TOOLS,
        estimate,
        targetTokens: request.targetTokens,
        summaryTokens,
      });
      if (plan === null) return null;
      const { text, usage } = await summarise(
        options.backend,
        summaryRequest(plan.older, Math.floor(summaryTokens * 0.7), nonce()),
        request.signal,
      );
      // A model that ignores the length asked for still gets no more than its share.
      const cap = summaryTokens * 4;
      const summary =
        text.length <= cap ? text : `${text.slice(0, cap)} [… the rest of this summary was cut to fit]`;
      return {
        messages: plan.rebuild(summaryMessage(summary, plan.older.length, nonce())),
        summarisedMessages: plan.older.length,
        usage,
        model: options.backend.model,
      };
    },
  };
}

/** One streamed call without tools: its text and usage. */
async function summarise(
  backend: Backend,
  messages: CompressionRequest['messages'],
  signal: AbortSignal,
): Promise<{ text: string; usage: TokenUsage }> {
  let text = '';
  let usage = emptyUsage();
  for await (const part of backend.stream({ messages: [...messages], tools: [], signal })) {
    if (signal.aborted) throw signal.reason;
    if (part.type === 'text-delta') text += part.text;
    else if (part.type === 'finish') usage = part.usage;
  }
  return { text: text.trim(), usage };
}
