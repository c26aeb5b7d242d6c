import type { Backend, ModelRequest, ModelStreamPart } from '../../types/backend.js';
import { ProviderError } from '../../types/errors.js';
import type { ChatMessage } from '../../types/messages.js';
import { addUsage, emptyUsage, type TokenUsage } from '../../types/usage.js';
import { untilAborted } from '../../util/abort.js';
import { AsyncQueue } from '../../util/async-queue.js';
import { startToolBridge, type ToolBridge } from './tool-bridge.js';

/** What one harness turn is started with. */
export interface HarnessTurn {
  /** The text to send now: the whole conversation for a new turn, the new messages when continuing. */
  prompt: string;
  /** massgen's system instructions for this conversation (the harness adds them to its own). */
  system: string;
  /** The harness's own session to continue (sessions resume across massgen turns), or null. */
  resume: string | null;
  /** massgen's tools as an MCP server, or null when this conversation offers none (the final answer). */
  tools: { url: string; headers: Readonly<Record<string, string>> } | null;
  /** `presentation` when the conversation offers no tools (the final answer): write context paths open. */
  phase: 'coordination' | 'presentation';
  signal: AbortSignal;
}

/** What a harness reports while it works; calls of massgen's tools come through the tool bridge. */
export type HarnessEvent =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool-call'; callId: string; toolName: string; input: unknown }
  | { type: 'tool-result'; callId: string; toolName: string; output: unknown; isError: boolean }
  /** Usage of one model call (added up), and cost when the harness reports it. */
  | { type: 'usage'; usage: Partial<TokenUsage> }
  | { type: 'session'; id: string };

/** One coding-agent harness (Claude Code, Codex): how to run a turn of it. */
export interface HarnessAdapter {
  readonly type: string;
  readonly model: string;
  /** Runs one harness turn; the iterable ends when the harness's turn ends. Aborting `signal` stops it. */
  run(turn: HarnessTurn): AsyncIterable<HarnessEvent>;
}

type Item =
  | HarnessEvent
  | { type: 'massgen-call'; id: string; name: string; args: Record<string, unknown> }
  | { type: 'end' }
  | { type: 'error'; error: unknown };

interface LiveTurn {
  items: AsyncIterator<Item>;
  queue: AsyncQueue<Item>;
  pending: Map<string, (text: string) => void>;
  controller: AbortController;
  /** The harness's own tool calls by id. */
  toolNames: Map<string, string>;
}

const TURN_OVER = 'Recorded. Your turn is over: stop here.';
/** How long a harness may take to stop by itself when its massgen turn is over. */
const WIND_DOWN_MS = 20_000;

/** The text of the user messages in `messages` (what a harness reads as its prompt). */
const userText = (messages: readonly ChatMessage[]) =>
  messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n\n');

/**
 * A coding-agent harness as a massgen backend. A harness runs its own tool loop, so one harness turn
 * spans many massgen steps: massgen's tools reach it as an MCP server (the tool bridge), and when it
 * calls one the step ends with that call while the harness waits on the bridge. The next step answers
 * the call with massgen's result (and any update injected since) and the same harness turn goes on; a
 * new conversation (the next turn, the final presentation) ends the waiting turn and starts another,
 * resuming the harness's session. Text, thinking and the harness's own tools (shell, edits, its MCP
 * servers) stream as the step's parts.
 */
export function createHarnessBackend(adapter: HarnessAdapter): Backend {
  let bridge: Promise<ToolBridge> | null = null;
  let live: LiveTurn | null = null;
  let session: string | null = null;
  let previous: readonly ChatMessage[] = [];
  let calls = 0;

  const onCall = async (name: string, args: Record<string, unknown>) => {
    const turn = live;
    // Between massgen turns (a harness winding down): nothing more is recorded.
    if (!turn) return { text: TURN_OVER };
    const id = `massgen_call_${++calls}`;
    return new Promise<{ text: string }>((resolve) => {
      turn.pending.set(id, (text) => resolve({ text }));
      turn.queue.push({ type: 'massgen-call', id, name, args });
    });
  };

  /** Usage of turns that ended between steps, reported with the next step. */
  let carried = emptyUsage();

  /**
   * Ends the harness turn in flight. Aborting is immediate (a timeout, a cancelled run). Otherwise the
   * harness is told its massgen turn is over and given a moment to stop by itself, so that a harness
   * which reports usage only when its turn completes (Codex) still reports it, and so that its session
   * is free to resume; then it is aborted.
   */
  const endLive = async (how: 'abort' | 'wind-down' = 'abort') => {
    const turn = live;
    live = null;
    if (!turn) return;
    for (const resolve of turn.pending.values()) resolve(TURN_OVER);
    turn.pending.clear();
    if (how === 'wind-down') {
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(new Error('wind-down')), WIND_DOWN_MS);
      try {
        for (;;) {
          const next = await untilAborted(turn.items.next(), deadline.signal);
          if (next.done || next.value.type === 'end' || next.value.type === 'error') break;
          if (next.value.type === 'usage')
            carried = addUsage(carried, { ...emptyUsage(), ...next.value.usage });
          else if (next.value.type === 'session') session = next.value.id;
          else if (next.value.type === 'massgen-call') turn.pending.get(next.value.id)?.(TURN_OVER);
        }
      } catch {
        // It did not stop in time: aborted below.
      } finally {
        clearTimeout(timer);
      }
    }
    turn.controller.abort(new Error('the massgen turn ended'));
    turn.queue.close();
  };

  const start = async (request: ModelRequest, continuing: boolean): Promise<LiveTurn> => {
    let tools: HarnessTurn['tools'] = null;
    if (request.tools.length > 0) {
      bridge ??= startToolBridge(onCall);
      const served = await bridge;
      served.setTools(request.tools);
      tools = { url: served.url, headers: served.headers };
    }
    const queue = new AsyncQueue<Item>();
    const turn: LiveTurn = {
      queue,
      items: queue[Symbol.asyncIterator](),
      pending: new Map(),
      controller: new AbortController(),
      toolNames: new Map(),
    };
    const system = request.messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n\n');
    const prompt =
      continuing && session ? userText(request.messages.slice(previous.length)) : userText(request.messages);
    void (async () => {
      try {
        for await (const event of adapter.run({
          prompt,
          system,
          resume: session,
          tools,
          phase: tools ? 'coordination' : 'presentation',
          signal: turn.controller.signal,
        }))
          queue.push(event);
        queue.push({ type: 'end' });
      } catch (error) {
        queue.push({ type: 'error', error });
      }
    })();
    return turn;
  };

  /** The next step of the same conversation: the previous messages, then what massgen added. */
  const continues = (messages: readonly ChatMessage[]) =>
    previous.length > 0 &&
    messages.length > previous.length &&
    previous.every((m, i) => m.role === messages[i]?.role && m.content === messages[i]?.content);

  async function* stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const continuing = continues(request.messages);
    const added = continuing ? request.messages.slice(previous.length) : [];
    let turn = live;
    if (turn && continuing && turn.pending.size > 0) {
      const results = new Map(
        added.flatMap((m) => (m.role === 'tool' ? [[m.toolCallId, m.content] as const] : [])),
      );
      if ([...turn.pending.keys()].every((id) => results.has(id))) {
        // The harness listed the tools when its turn began; new calls are checked against today's.
        if (bridge) (await bridge).setTools(request.tools);
        // Updates massgen injected since the call travel with its result: the harness reads them now.
        const update = userText(added);
        for (const [id, resolve] of turn.pending)
          resolve(`${results.get(id)}${update ? `\n\n${update}` : ''}`);
        turn.pending.clear();
      } else {
        await endLive('wind-down');
        turn = null;
      }
    } else if (turn) {
      await endLive('wind-down');
      turn = null;
    }
    previous = [...request.messages];
    turn ??= live = await start(request, continuing);

    let usage = carried;
    carried = emptyUsage();
    const onAbort = () => void endLive();
    request.signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        const next = await untilAborted(turn.items.next(), request.signal);
        if (next.done)
          throw new ProviderError(adapter.type, `${adapter.type}: the harness turn ended unexpectedly`, {
            retryable: false,
          });
        const item = next.value;
        switch (item.type) {
          case 'text':
            yield { type: 'text-delta', text: item.text };
            break;
          case 'reasoning':
            yield { type: 'reasoning-delta', text: item.text };
            break;
          case 'tool-call':
            turn.toolNames.set(item.callId, item.toolName);
            yield {
              type: 'provider-tool-call',
              callId: item.callId,
              toolName: item.toolName,
              input: item.input,
            };
            break;
          case 'tool-result':
            yield {
              type: 'provider-tool-result',
              callId: item.callId,
              // Harnesses that report a result by id only: the name of the call it answers.
              toolName: item.toolName || (turn.toolNames.get(item.callId) ?? ''),
              output: item.output,
              isError: item.isError,
            };
            break;
          case 'usage':
            usage = addUsage(usage, { ...emptyUsage(), ...item.usage });
            break;
          case 'session':
            session = item.id;
            break;
          case 'massgen-call':
            yield { type: 'tool-call', call: { id: item.id, name: item.name, arguments: item.args } };
            yield { type: 'finish', finishReason: 'tool-calls', usage };
            return;
          case 'end':
            if (live === turn) live = null;
            yield { type: 'finish', finishReason: 'stop', usage };
            return;
          case 'error': {
            if (live === turn) live = null;
            if (request.signal.aborted) throw request.signal.reason;
            const message = item.error instanceof Error ? item.error.message : String(item.error);
            throw new ProviderError(adapter.type, `${adapter.type}: ${message}`, {
              cause: item.error,
              retryable: false,
            });
          }
        }
      }
    } finally {
      request.signal.removeEventListener('abort', onAbort);
    }
  }

  return {
    type: adapter.type,
    model: adapter.model,
    stream,
    close: async () => {
      await endLive();
      await (await bridge)?.close();
    },
  };
}
