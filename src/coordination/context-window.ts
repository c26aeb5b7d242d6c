import { MassGenError } from '../types/errors.js';
import type { ChatMessage, ToolDefinition } from '../types/messages.js';
import type { RunContext } from './run-context.js';

/** Share of the window a prompt may fill: the rest is for the reply and for the estimate's error. */
export const PROMPT_SHARE = 0.75;
/** Peers' answers are first shortened to this, before anything of the turn itself is dropped. */
const FIRST_ANSWER_CAP = 1_000;
/** Below this an answer is not shortened further. */
const MIN_ANSWER_CHARS = 200;
/** Below this a tool result, a reply or a tool call's arguments of the latest step are not shortened. */
const MIN_LATEST_CHARS = 500;

/** A rough token count (≈ 4 characters a token, plus a little per message): no tokenizer needed. */
export function estimateTokens(
  messages: readonly ChatMessage[],
  tools: readonly ToolDefinition[] = [],
): number {
  const calls = (m: ChatMessage) =>
    m.role === 'assistant' && m.toolCalls?.length ? (JSON.stringify(m.toolCalls) ?? '').length : 0;
  const schemas = tools.length === 0 ? 0 : Math.ceil((JSON.stringify(tools) ?? '').length / 4);
  return messages.reduce((sum, m) => sum + Math.ceil((m.content.length + calls(m)) / 4) + 4, schemas);
}

// An answer as the coordination prompts show it (`<agent2>…<end of agent2>`) and as the presentation
// does (`<bob (agent2) — YOUR ANSWER>…<end of bob>`). Narrow openings on purpose: an answer full of
// `<tag>` lines must not make every one of them a candidate scanned to the end of the text.
const ANSWER_BLOCKS = [
  /<(agent\d+)()>\n([\s\S]*?)\n<end of \1>/g,
  /<([^<>\n]+?)( \(agent\d+\)(?: — YOUR ANSWER)?)>\n([\s\S]*?)\n<end of \1>/g,
];

function clipAnswers(text: string, cap: number): string {
  return ANSWER_BLOCKS.reduce(
    (out, block) =>
      out.replace(block, (whole, id: string, extra: string, body: string) =>
        body.length <= cap
          ? whole
          : `<${id}${extra}>\n${body.slice(0, cap)}\n[… ${body.length - cap} characters of this answer cut to fit the context window …]\n<end of ${id}>`,
      ),
    text,
  );
}

const HISTORY = /<CONVERSATION SO FAR>\n([\s\S]*?)\n<END OF CONVERSATION SO FAR>/;

/** The history block with its oldest turn removed (the latest stays); null when nothing can go. */
function dropOldestHistoryTurn(text: string): string | null {
  const match = HISTORY.exec(text);
  if (!match) return null;
  const body = match[1] ?? '';
  const turns = body.split(/\n\n(?=\[Turn \d+\]\n)/);
  const kept = turns.filter((t) => /^\[Turn \d+\]\n/.test(t));
  if (kept.length < 2) return null;
  const earlier = /^\[(\d+) earlier turns? of the conversation removed/.exec(turns[0] ?? '');
  const removed = (earlier ? Number(earlier[1]) : 0) + 1;
  const note = `[${removed} earlier turn${removed === 1 ? '' : 's'} of the conversation removed to fit the context window]`;
  const next = [note, ...kept.slice(1)].join('\n\n');
  return text.replace(HISTORY, () => `<CONVERSATION SO FAR>\n${next}\n<END OF CONVERSATION SO FAR>`);
}

const clip = (text: string, cap: number, what: string) =>
  text.length <= cap
    ? text
    : `${text.slice(0, cap)}\n[… ${text.length - cap} characters of this ${what} cut to fit the context window …]`;

/** What fitting a request into a context window came to. */
export interface ContextFit {
  /** The messages to send (trimmed when needed). */
  messages: ChatMessage[];
  /** Estimated prompt tokens (messages and tool definitions) before and after trimming. */
  beforeTokens: number;
  afterTokens: number;
  /** The most a prompt may use (75 % of the window); Infinity when the window is unknown. */
  budget: number;
  trimmed: boolean;
  /** False: even trimmed to the floor, the request would overflow. It must not be sent. */
  fits: boolean;
}

/**
 * The messages, trimmed when they (with the tool definitions) would fill more than 75 % of the model's
 * context window, each cut with a note saying so, in this order until they fit:
 *
 * 1. tool results before the latest step are replaced by a note;
 * 2. peers' answers are shortened evenly, down to 1,000 characters each;
 * 3. earlier steps of the turn (the model's replies with their tool results) are dropped, oldest first,
 *    for one note; messages from massgen (updates, reminders) stay;
 * 4. earlier turns of the conversation's history are dropped, oldest first (the latest stays);
 * 5. the latest step's tool results, reply and tool-call arguments are shortened to 500 characters;
 * 6. peers' answers are shortened further, down to 200 characters each.
 *
 * The system prompt, the question and the tool definitions are never cut. `fits` says whether the
 * result is within the budget; a request that does not fit must not be sent.
 */
export function fitContext(
  messages: readonly ChatMessage[],
  contextWindow: number | undefined,
  tools: readonly ToolDefinition[] = [],
): ContextFit {
  const beforeTokens = estimateTokens(messages, tools);
  const budget = contextWindow === undefined ? Infinity : Math.floor(contextWindow * PROMPT_SHARE);
  if (beforeTokens <= budget)
    return {
      messages: [...messages],
      beforeTokens,
      afterTokens: beforeTokens,
      budget,
      trimmed: false,
      fits: true,
    };
  const out: ChatMessage[] = messages.map((m) => ({ ...m }) as ChatMessage);
  const fits = () => estimateTokens(out, tools) <= budget;
  // The latest step: from the last reply of the model (or the last message) to the end.
  let latest = out.map((m) => m.role).lastIndexOf('assistant');
  if (latest === -1) latest = out.length - 1;
  const editUsers = (edit: (text: string) => string) => {
    for (let i = 0; i < out.length; i++) {
      const m = out[i];
      if (m?.role === 'user') out[i] = { ...m, content: edit(m.content) };
    }
  };
  const clipAllAnswers = (floor: number) => {
    for (let cap = 8_000; !fits() && cap >= floor; cap = cap > floor && cap / 2 < floor ? floor : cap / 2)
      editUsers((text) => clipAnswers(text, cap));
  };

  // 1. Tool results before the latest step, oldest first.
  for (let i = 0; i < latest && !fits(); i++) {
    const m = out[i];
    if (m?.role !== 'tool' || m.content.startsWith('[tool result')) continue;
    out[i] = {
      ...m,
      content: `[tool result of ${m.toolName} removed to fit the context window: ${m.content.length} characters]`,
    };
  }
  // 2. Peers' answers, evenly, down to the first cap.
  clipAllAnswers(FIRST_ANSWER_CAP);
  // 3. Earlier steps of this turn: a reply of the model with the tool results that answer it.
  let dropped = 0;
  let notePosition = -1;
  for (let i = 0; i < latest && !fits();) {
    if (out[i]?.role !== 'assistant') {
      i++;
      continue;
    }
    let end = i + 1;
    while (end < latest && out[end]?.role === 'tool') end++;
    out.splice(i, end - i);
    latest -= end - i;
    dropped++;
    if (notePosition === -1) {
      notePosition = i;
      out.splice(i, 0, { role: 'user', content: '' });
      latest++;
      i++;
    }
    out[notePosition] = {
      role: 'user',
      content: `[${dropped} earlier step${dropped === 1 ? '' : 's'} of this turn (your replies and their tool results) removed to fit the context window]`,
    };
  }
  // 4. Earlier turns of the conversation, oldest first.
  for (let i = 0; i < out.length && !fits(); i++) {
    const m = out[i];
    if (m?.role !== 'user') continue;
    for (let next = dropOldestHistoryTurn(m.content); next !== null && !fits();) {
      out[i] = { ...m, content: next };
      next = dropOldestHistoryTurn(next);
    }
  }
  // 5. The latest step itself, down to a floor.
  for (let i = latest; i < out.length && !fits(); i++) {
    const m = out[i];
    if (m?.role === 'tool') out[i] = { ...m, content: clip(m.content, MIN_LATEST_CHARS, 'tool result') };
    if (m?.role === 'assistant') {
      const toolCalls = m.toolCalls?.map((call) => {
        const size = (JSON.stringify(call.arguments) ?? '').length;
        return size <= MIN_LATEST_CHARS
          ? call
          : {
              ...call,
              arguments: { note: `${size} characters of arguments removed to fit the context window` },
            };
      });
      out[i] = {
        ...m,
        content: clip(m.content, MIN_LATEST_CHARS, 'reply'),
        ...(toolCalls ? { toolCalls } : {}),
      };
    }
  }
  // 6. Peers' answers, down to the floor.
  clipAllAnswers(MIN_ANSWER_CHARS);
  const afterTokens = estimateTokens(out, tools);
  return { messages: out, beforeTokens, afterTokens, budget, trimmed: true, fits: afterTokens <= budget };
}

/**
 * A request that would overflow the model's context window even after trimming. It is never sent; the
 * message names the agent, the model's window and the estimate, and what to change.
 */
export class ContextOverflowError extends MassGenError {
  constructor(
    readonly agentId: string,
    model: string,
    readonly contextWindow: number,
    readonly estimatedTokens: number,
    /** True when the turn's opening request overflowed: the agent cannot take part at all. */
    readonly permanent: boolean,
    /** The provider's refusal, when it was the provider that found the request too long. */
    refusal?: string,
  ) {
    super(
      'context_overflow',
      refusal === undefined
        ? `${agentId}'s request does not fit ${model}'s ${contextWindow.toLocaleString('en-US')}-token context window — about ${estimatedTokens.toLocaleString('en-US')} tokens even after trimming, over the ${Math.floor(contextWindow * PROMPT_SHARE).toLocaleString('en-US')} a prompt may use; it was not sent (use a model with a larger context window, or fewer agents or a smaller visibility_k)`
        : `${agentId}'s request (about ${estimatedTokens.toLocaleString('en-US')} tokens) is too long for ${model} even after compressing its history — ${refusal} (use a model with a larger context window, set backend.context_window to the model's real window, or fewer agents or a smaller visibility_k)`,
    );
    this.name = 'ContextOverflowError';
  }
}

/**
 * The messages of one of an agent's requests, fitted to its model's context window: trimmed (and
 * reported with `agent.context.trimmed`) when needed.
 *
 * @throws {ContextOverflowError} when even the trimmed request would overflow: it must not be sent.
 */
export function fitRequest(
  ctx: RunContext,
  agentIndex: number,
  messages: readonly ChatMessage[],
  tools: readonly ToolDefinition[],
  opening: boolean,
): ChatMessage[] {
  const { spec } = ctx.state.agent(agentIndex);
  const fit = fitContext(messages, spec.contextWindow, tools);
  if (spec.contextWindow === undefined || !fit.trimmed) return fit.messages;
  if (!fit.fits)
    throw new ContextOverflowError(spec.id, spec.backend.model, spec.contextWindow, fit.afterTokens, opening);
  ctx.emit({
    type: 'agent.context.trimmed',
    agentId: spec.id,
    contextWindow: spec.contextWindow,
    beforeTokens: fit.beforeTokens,
    afterTokens: fit.afterTokens,
  });
  return fit.messages;
}
