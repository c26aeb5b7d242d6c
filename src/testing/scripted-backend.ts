import type { Backend, ModelRequest, ModelStreamPart } from '../types/backend.js';
import { ProviderError } from '../types/errors.js';
import type { ChatMessage, ToolDefinition } from '../types/messages.js';
import { emptyUsage, type TokenUsage } from '../types/usage.js';
import { sleep } from '../util/abort.js';

/** One scripted model call. */
export interface ScriptedReply {
  /** Streamed as text deltas (split into `chunks` pieces). */
  text?: string;
  /** `streamInput`: announced with a `tool-input-start` part first, as backends that stream tool input do. */
  toolCalls?: { name: string; arguments: unknown; id?: string; streamInput?: boolean }[];
  usage?: Partial<TokenUsage>;
  /** Wait before streaming (simulates a slow model); aborts cleanly. */
  delayMs?: number;
  /** Awaited before streaming: lets a test hold a call until something else happened. */
  waitFor?: () => Promise<unknown>;
  /** Number of text deltas the text is split into (default 1). */
  chunks?: number;
  /** Built-in tools the provider ran during this call (web search…): streamed as provider-tool parts. */
  providerTools?: { name: string; input: unknown; output: unknown; isError?: boolean }[];
}

/** A scripted step: a reply, an error to throw, a call that never answers, or a function of the request. */
export type ScriptStep =
  ScriptedReply | { error: Error } | { hang: true } | ((request: RecordedRequest) => ScriptStep);

/** What the backend was asked, copied at call time. */
export interface RecordedRequest {
  messages: ChatMessage[];
  tools: ToolDefinition[];
  toolChoice: ModelRequest['toolChoice'];
}

let callIds = 0;

/** Never resolves; rejects with the signal's reason when it aborts (a model that never answers). */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/**
 * A backend that replays a script, records every request and fails loudly on unexpected calls.
 * For testing coordination logic (and user configs) without any model.
 *
 * @example
 * ```ts
 * const backend = new ScriptedBackend([step.answer('42'), step.vote('agent1', 'correct')]);
 * ```
 */
export class ScriptedBackend implements Backend {
  readonly type: string;
  readonly model: string;
  readonly requests: RecordedRequest[] = [];
  /** Descriptions of calls made after the script ran out. */
  readonly unexpectedCalls: string[] = [];
  private readonly steps: ScriptStep[];
  private readonly repeatLast: boolean;

  constructor(
    steps: readonly ScriptStep[],
    options: { model?: string; type?: string; repeatLast?: boolean } = {},
  ) {
    this.steps = [...steps];
    this.model = options.model ?? 'scripted';
    this.type = options.type ?? 'scripted';
    this.repeatLast = options.repeatLast ?? false;
  }

  /** Steps not used yet. */
  get remaining(): number {
    return this.steps.length;
  }

  /** Throws when steps are left over or calls were made past the end of the script. */
  assertDone(): void {
    if (this.unexpectedCalls.length > 0) {
      throw new Error(`ScriptedBackend(${this.model}): unexpected calls: ${this.unexpectedCalls.join('; ')}`);
    }
    if (this.steps.length > 0) {
      throw new Error(
        `ScriptedBackend(${this.model}): ${this.steps.length} scripted step(s) were never used`,
      );
    }
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
    const recorded: RecordedRequest = {
      messages: structuredClone([...request.messages]),
      tools: structuredClone([...request.tools]),
      toolChoice: request.toolChoice,
    };
    this.requests.push(recorded);
    let step = this.steps.length > 1 || !this.repeatLast ? this.steps.shift() : this.steps[0];
    if (step === undefined) {
      const description = `call #${this.requests.length} (last message: ${JSON.stringify(request.messages.at(-1)?.content ?? '').slice(0, 120)})`;
      this.unexpectedCalls.push(description);
      throw new Error(
        `ScriptedBackend(${this.model}): unexpected ${description} — the script has no step left`,
      );
    }
    while (typeof step === 'function') step = step(recorded);
    if ('hang' in step) {
      await untilAborted(request.signal);
      return;
    }
    if ('error' in step) throw step.error;
    if (step.waitFor) await Promise.race([step.waitFor(), untilAborted(request.signal)]);
    if (step.delayMs) await sleep(step.delayMs, request.signal);
    if (request.signal.aborted) throw request.signal.reason;
    if (step.text) {
      const chunks = Math.max(1, step.chunks ?? 1);
      const size = Math.ceil(step.text.length / chunks);
      for (let i = 0; i < step.text.length; i += size) {
        yield { type: 'text-delta', text: step.text.slice(i, i + size) };
      }
    }
    for (const [i, used] of (step.providerTools ?? []).entries()) {
      const callId = `provider_${++callIds}_${i}`;
      yield { type: 'provider-tool-call', callId, toolName: used.name, input: used.input };
      yield {
        type: 'provider-tool-result',
        callId,
        toolName: used.name,
        output: used.output,
        isError: used.isError ?? false,
      };
    }
    for (const call of step.toolCalls ?? []) {
      const id = call.id ?? `call_${++callIds}`;
      if (call.streamInput) yield { type: 'tool-input-start', callId: id, toolName: call.name };
      yield { type: 'tool-call', call: { id, name: call.name, arguments: call.arguments } };
    }
    yield {
      type: 'finish',
      finishReason: step.toolCalls?.length ? 'tool-calls' : 'stop',
      usage: { ...emptyUsage(), inputTokens: 10, outputTokens: 5, ...step.usage },
    };
  }
}

/** Builders for common script steps. */
export const step = {
  answer: (content: string, extra: Omit<ScriptedReply, 'toolCalls'> = {}): ScriptedReply => ({
    ...extra,
    toolCalls: [{ name: 'new_answer', arguments: { content } }],
  }),
  vote: (
    agentId: string,
    reason = 'best answer',
    extra: Omit<ScriptedReply, 'toolCalls'> = {},
  ): ScriptedReply => ({
    ...extra,
    toolCalls: [{ name: 'vote', arguments: { agent_id: agentId, reason } }],
  }),
  text: (text: string, extra: Omit<ScriptedReply, 'text'> = {}): ScriptedReply => ({ ...extra, text }),
  tool: (name: string, args: unknown, extra: Omit<ScriptedReply, 'toolCalls'> = {}): ScriptedReply => ({
    ...extra,
    toolCalls: [{ name, arguments: args }],
  }),
  /** A provider error, e.g. `step.fail(500)` (retryable) or `step.fail(401)`. */
  fail: (status: number, message = `HTTP ${status}`, retryAfterMs?: number): { error: Error } => ({
    error: new ProviderError('scripted', message, {
      status,
      retryable: status === 429 || status >= 500,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    }),
  }),
  hang: (): { hang: true } => ({ hang: true }),
};

/** A promise a test can open later: hold a scripted call until something else happened. */
export function gate(): { wait: () => Promise<void>; open: () => void; readonly isOpen: boolean } {
  let open!: () => void;
  let isOpen = false;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return {
    wait: () => promise,
    open: () => {
      isOpen = true;
      open();
    },
    get isOpen() {
      return isOpen;
    },
  };
}
