import type { ChatMessage, ToolDefinition } from './messages.js';
import type { TokenUsage } from './usage.js';

/** Why a history was compressed: it passed the trigger, or the provider refused it as too long. */
export type CompressionReason = 'threshold' | 'provider_error';

/** What the core asks of a compressor: one agent's request, and how small it should become. */
export interface CompressionRequest {
  messages: readonly ChatMessage[];
  tools: readonly ToolDefinition[];
  /** Estimated prompt tokens the compressed request should come to at most (messages and tools). */
  targetTokens: number;
  /** The core's estimate of a request's prompt tokens (these tools included). */
  estimate: (messages: readonly ChatMessage[]) => number;
  signal: AbortSignal;
}

/** A compressed history: older steps replaced by one quoted summary, the rest verbatim. */
export interface CompressionResult {
  messages: ChatMessage[];
  /** Messages folded into the summary. */
  summarisedMessages: number;
  /** The summarising model call's usage (counted as the agent's). */
  usage: TokenUsage;
  /** The model that wrote the summary. */
  model: string;
}

/**
 * Summarises an agent's older steps when its history nears its model's context window
 * (`memory.compression`, docs/compression.md). The core decides when; the compressor decides what may
 * go (never the system prompt, the question, peers' answers, massgen's own messages or workflow calls)
 * and makes the one summarising call.
 */
export interface ContextCompressor {
  /** Share of the context window past which a request is compressed before it is sent. */
  readonly triggerThreshold: number;
  /** Share of the context window a compressed request aims for. */
  readonly targetRatio: number;
  /** Null when nothing may be summarised (too few older steps). */
  compress(request: CompressionRequest): Promise<CompressionResult | null>;
}
