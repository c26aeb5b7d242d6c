import type { Backend, ModelRequest } from '../types/backend.js';
import { ProviderError, describeError } from '../types/errors.js';
import type { ChatMessage, ToolCall } from '../types/messages.js';
import type { Phase } from '../types/events.js';
import { emptyUsage, type TokenUsage } from '../types/usage.js';
import { MAX_RETRY_AFTER_MS, retryWithBackoff } from '../util/backoff.js';
import { truncate } from '../util/text.js';
import { compressHistory, passesCompressionTrigger } from './context-compression.js';
import { ContextOverflowError, estimateTokens, fitRequest } from './context-window.js';
import type { RunContext } from './run-context.js';
import { VOTE } from './workflow-tools.js';

export interface StepOutput {
  text: string;
  toolCalls: ToolCall[];
  usage: TokenUsage;
  finishReason: string;
  /**
   * The agent's history after compression replaced its older steps with a summary: the caller goes on
   * from it (and appends to it), so the next step does not summarise the same steps again.
   */
  history?: ChatMessage[];
}

const DEFAULT_MAX_RETRIES = 3;

/**
 * One model call for one agent, streamed into text events, retried when the provider error is
 * retryable ({@link retryWithBackoff}: full jitter, `Retry-After` honoured up to 60 s, a longer one
 * fails the attempt with the provider's wait in the message). Partial text of a failed attempt was
 * already shown; the `agent.step.retrying` event tells views to discard it. The request is first
 * fitted to the model's context window ({@link fitRequest}); one that cannot fit throws a
 * `ContextOverflowError` and is never sent. With a compressor (`memory.compression`), older steps are
 * summarised first when the request passes its trigger, and a provider's context-length refusal is
 * answered by compressing and trying once more; a second refusal is a `ContextOverflowError`.
 */
export async function runModelStep(
  ctx: RunContext,
  agentIndex: number,
  phase: Phase,
  step: number,
  request: Omit<ModelRequest, 'signal'>,
  signal: AbortSignal,
): Promise<StepOutput> {
  const agent = ctx.state.agent(agentIndex);
  const agentId = agent.spec.id;
  // Older steps are summarised first when the request nears the window (memory.compression)… Below the
  // trigger nothing is awaited: a step's start and its request stay in the same tick, as before
  // compression existed (an await here let every agent's request set-up run before any step's event
  // reached the views: 44 → 15 ms until the first step.started with 64 agents, 9 → 4 with 16).
  let history = passesCompressionTrigger(ctx, agentIndex, request.messages, request.tools)
    ? (await compressHistory(ctx, agentIndex, request.messages, request.tools, 'threshold', signal))?.messages
    : undefined;
  // …and what is sent is fitted: a request that cannot fit the context window is never sent.
  const messages = fitRequest(ctx, agentIndex, history ?? request.messages, request.tools, step === 1);
  ctx.emit({ type: 'agent.step.started', agentId, phase, step });
  const attempt = (messages: ChatMessage[]) =>
    attemptStep(ctx, agentIndex, phase, step, request, messages, signal);
  let output: StepOutput;
  try {
    output = await attempt(messages);
  } catch (error) {
    if (!(error instanceof ProviderError && error.contextLength && agent.spec.compressor)) throw error;
    // The provider counted more than our estimate: compress, then try once more.
    const sent = history ?? request.messages;
    const overflow = (refusal: ProviderError) =>
      new ContextOverflowError(
        agentId,
        agent.spec.backend.model,
        agent.spec.contextWindow ?? 0,
        estimateTokens(sent, request.tools),
        step === 1,
        describeError(refusal),
      );
    const compressed = await compressHistory(ctx, agentIndex, sent, request.tools, 'provider_error', signal);
    if (compressed === null) throw overflow(error);
    history = compressed.messages;
    ctx.emit({
      type: 'agent.step.retrying',
      agentId,
      phase,
      attempt: 1,
      delayMs: 0,
      error: { code: error.code, message: describeError(error) },
      responded: true,
    });
    try {
      output = await attempt(fitRequest(ctx, agentIndex, history, request.tools, step === 1));
    } catch (again) {
      if (again instanceof ProviderError && again.contextLength) throw overflow(again);
      throw again;
    }
  }
  return history ? { ...output, history } : output;
}

/** One step's model call with its retries of retryable provider errors. */
function attemptStep(
  ctx: RunContext,
  agentIndex: number,
  phase: Phase,
  step: number,
  request: Omit<ModelRequest, 'signal'>,
  messages: ChatMessage[],
  signal: AbortSignal,
): Promise<StepOutput> {
  const agent = ctx.state.agent(agentIndex);
  const agentId = agent.spec.id;
  const maxRetries = agent.spec.maxRetries ?? DEFAULT_MAX_RETRIES;
  return retryWithBackoff(
    async () => {
      const output = await streamOnce(ctx, agent.spec.backend, agentId, phase, {
        ...request,
        messages,
        signal,
      });
      const costUsd = ctx.addUsage(agentId, output.usage);
      ctx.emit({
        type: 'agent.step.finished',
        agentId,
        phase,
        step,
        finishReason: output.finishReason,
        usage: output.usage,
        costUsd,
      });
      return output;
    },
    {
      retries: maxRetries,
      isRetryable: (error): error is ProviderError => error instanceof ProviderError && error.retryable,
      retryAfterMs: (error) => error.retryAfterMs,
      tooLongWait: (error, retryAfterMs) =>
        new ProviderError(
          error.provider,
          `${describeError(error)} — the provider asks to wait ${Math.ceil(retryAfterMs / 1000)}s before retrying, longer than the ${MAX_RETRY_AFTER_MS / 1000}s massgen waits`,
          { cause: error, retryable: false, ...(error.status === undefined ? {} : { status: error.status }) },
        ),
      onRetry: ({ attempt, delayMs, error }) =>
        ctx.emit({
          type: 'agent.step.retrying',
          agentId,
          phase,
          attempt,
          delayMs,
          error: { code: error.code, message: describeError(error) },
          ...(error.responded ? { responded: true } : {}),
        }),
      // Jitter from the run's clock: a seeded clock replays the same waits.
      random: ctx.clock.random,
      signal,
    },
  );
}

async function streamOnce(
  ctx: RunContext,
  backend: Backend,
  agentId: string,
  phase: Phase,
  request: ModelRequest,
): Promise<StepOutput> {
  let text = '';
  const toolCalls: ToolCall[] = [];
  let usage = emptyUsage();
  let finishReason = 'unknown';
  let open: 'text' | 'reasoning' | null = null;
  const providerCalls = new Map<string, number>();
  // Votes the model is writing (backends that stream tool input): shown as a `vote` tool call.
  const composing = new Map<string, number>();
  const composed = (callId: string, result: string, isError: boolean) => {
    const started = composing.get(callId);
    if (started === undefined) return;
    composing.delete(callId);
    ctx.emit({
      type: 'tool.call.finished',
      agentId,
      phase,
      callId,
      toolName: VOTE,
      result,
      isError,
      durationMs: Math.max(0, ctx.clock.now() - started),
    });
  };
  const close = () => {
    if (open) ctx.emit({ type: 'agent.text.end', agentId, phase, kind: open });
    open = null;
  };
  try {
    for await (const part of backend.stream(request)) {
      // A superseded or timed-out turn must stop consuming at once, even if the backend ignores the signal.
      if (request.signal.aborted) throw request.signal.reason;
      if (part.type === 'text-delta' || part.type === 'reasoning-delta') {
        if (part.text === '') continue;
        const kind = part.type === 'text-delta' ? 'text' : 'reasoning';
        if (open !== kind) {
          close();
          open = kind;
          ctx.emit({ type: 'agent.text.start', agentId, phase, kind });
        }
        ctx.emit({ type: 'agent.text.delta', agentId, phase, kind, text: part.text });
        if (kind === 'text') text += part.text;
      } else if (part.type === 'tool-input-start') {
        if (part.toolName !== VOTE || composing.has(part.callId)) continue;
        composing.set(part.callId, ctx.clock.now());
        ctx.emit({
          type: 'tool.call.started',
          agentId,
          phase,
          callId: part.callId,
          toolName: VOTE,
          arguments: {},
        });
      } else if (part.type === 'tool-call') {
        toolCalls.push(part.call);
        composed(part.call.id, 'vote written', false);
      } else if (part.type === 'provider-tool-call') {
        // Built-in tools (web search, code execution) run at the provider: shown, never executed here.
        providerCalls.set(part.callId, ctx.clock.now());
        ctx.emit({
          type: 'tool.call.started',
          agentId,
          phase,
          callId: part.callId,
          toolName: part.toolName,
          arguments: part.input,
          providerExecuted: true,
        });
      } else if (part.type === 'provider-tool-result') {
        const started = providerCalls.get(part.callId) ?? ctx.clock.now();
        ctx.emit({
          type: 'tool.call.finished',
          agentId,
          phase,
          callId: part.callId,
          toolName: part.toolName,
          // Scrubbed before the cut: a secret cut in half would no longer be recognised.
          result: truncate(
            ctx.scrub(typeof part.output === 'string' ? part.output : (JSON.stringify(part.output) ?? '')),
            2000,
          ),
          isError: part.isError,
          durationMs: Math.max(0, ctx.clock.now() - started),
          providerExecuted: true,
        });
      } else if (part.type === 'finish') {
        usage = part.usage;
        finishReason = part.finishReason;
      }
    }
  } finally {
    close();
    for (const callId of [...composing.keys()])
      composed(callId, 'the model call ended before the vote was complete', true);
  }
  if (request.signal.aborted) throw request.signal.reason;
  return { text, toolCalls, usage, finishReason };
}
