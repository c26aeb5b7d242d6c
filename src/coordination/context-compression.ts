import type { ContextCompressor } from '../types/compression.js';
import { describeError } from '../types/errors.js';
import type { ChatMessage, ToolDefinition } from '../types/messages.js';
import { estimateTokens } from './context-window.js';
import type { RunContext } from './run-context.js';

/** What compressing a request came to: the history to send from now on. */
export interface Compressed {
  messages: ChatMessage[];
  afterTokens: number;
}

/**
 * Whether `messages` pass the agent's compression trigger (a compressor, a known window, and more than
 * its trigger share of it). Synchronous on purpose: a step awaits the compressor only when this holds,
 * so most steps' start and request stay in one tick (an await per step — compression is on by default —
 * let every agent's request set-up run before any step's event reached the views).
 */
export function passesCompressionTrigger(
  ctx: RunContext,
  agentIndex: number,
  messages: readonly ChatMessage[],
  tools: readonly ToolDefinition[],
): boolean {
  const { compressor, contextWindow } = ctx.state.agent(agentIndex).spec;
  // Estimated only with a compressor and a window: most steps of a run without either count nothing.
  return (
    compressor !== undefined &&
    contextWindow !== undefined &&
    overTrigger(compressor, contextWindow, estimateTokens(messages, tools))
  );
}

/** Whether `tokens` fill more than the compressor's trigger share of the window. */
function overTrigger(compressor: ContextCompressor, window: number, tokens: number): boolean {
  return tokens > window * compressor.triggerThreshold;
}

/**
 * Summarises the agent's older steps when `reason` calls for it: `threshold` when the request would
 * fill more than the compressor's trigger share of a known window (aiming at its target ratio);
 * `provider_error` after the provider refused the request as too long (aiming at the target ratio of
 * the window, and at most half of what was sent). The summarising call's usage counts as the agent's;
 * `agent.context.compressed` says what went and what it saved. Null when nothing was compressed.
 */
export async function compressHistory(
  ctx: RunContext,
  agentIndex: number,
  messages: readonly ChatMessage[],
  tools: readonly ToolDefinition[],
  reason: 'threshold' | 'provider_error',
  signal: AbortSignal,
): Promise<Compressed | null> {
  const { spec } = ctx.state.agent(agentIndex);
  const compressor: ContextCompressor | undefined = spec.compressor;
  if (!compressor) return null;
  const window = spec.contextWindow;
  const estimate = (list: readonly ChatMessage[]) => estimateTokens(list, tools);
  const beforeTokens = estimate(messages);
  let targetTokens: number;
  if (reason === 'threshold') {
    if (window === undefined || !overTrigger(compressor, window, beforeTokens)) return null;
    targetTokens = Math.floor(window * compressor.targetRatio);
  } else {
    const half = Math.floor(beforeTokens / 2);
    targetTokens = window === undefined ? half : Math.min(half, Math.floor(window * compressor.targetRatio));
  }
  let result: Awaited<ReturnType<ContextCompressor['compress']>>;
  try {
    result = await compressor.compress({ messages, tools, targetTokens, estimate, signal });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    // A failed summary costs the agent nothing more than trimming would.
    ctx.emit({
      type: 'run.warning',
      code: 'compression_failed',
      key: 'memory.compression',
      message: `${spec.id}: summarising its older steps failed (${describeError(error)}); the request is trimmed instead`,
    });
    return null;
  }
  if (signal.aborted) throw signal.reason;
  if (result === null) return null;
  ctx.addUsage(spec.id, result.usage);
  // The summary was written from scrubbed text; scrubbed again all the same, as everything a model reads.
  const compressed = result.messages.map((m) =>
    m.role === 'user' ? { ...m, content: ctx.scrub(m.content) } : m,
  );
  const afterTokens = estimate(compressed);
  ctx.emit({
    type: 'agent.context.compressed',
    agentId: spec.id,
    reason,
    ...(window === undefined ? {} : { contextWindow: window }),
    summarisedMessages: result.summarisedMessages,
    beforeTokens,
    afterTokens,
    savedTokens: Math.max(0, beforeTokens - afterTokens),
    model: result.model,
  });
  return { messages: compressed, afterTokens };
}
