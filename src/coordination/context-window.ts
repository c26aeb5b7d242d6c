import type { ChatMessage } from '../types/messages.js';

/** What a trim did, for the `agent.context.trimmed` event. */
export interface ContextTrim {
  contextWindow: number;
  /** Estimated prompt tokens before and after. */
  beforeTokens: number;
  afterTokens: number;
}

/** Share of the window a prompt may fill: the rest is for the reply and for the estimate's error. */
const PROMPT_SHARE = 0.75;
/** Below this an answer is not shortened further. */
const MIN_ANSWER_CHARS = 200;

/** A rough token count (≈ 4 characters a token, plus a little per message): no tokenizer needed. */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + Math.ceil(m.content.length / 4) + 4, 0);
}

const ANSWER_BLOCK = /<(agent\d+)>\n([\s\S]*?)\n<end of \1>/g;

function clipAnswers(text: string, cap: number): string {
  return text.replace(ANSWER_BLOCK, (whole, id: string, body: string) =>
    body.length <= cap
      ? whole
      : `<${id}>\n${body.slice(0, cap)}\n[… ${body.length - cap} characters of this answer cut to fit the context window …]\n<end of ${id}>`,
  );
}

/**
 * The messages, trimmed when they would not fit the model's context window: first the oldest tool
 * results are replaced by a note, then the peers' answers are shortened, each with a note saying so.
 * The system prompt, the question and the latest message are kept whole. Calls `onTrim` when it
 * trimmed anything; returns the messages untouched when they fit or the window is unknown.
 */
export function fitContext(
  messages: readonly ChatMessage[],
  contextWindow: number | undefined,
  onTrim: (trim: ContextTrim) => void,
): ChatMessage[] {
  const before = estimateTokens(messages);
  if (contextWindow === undefined) return [...messages];
  const budget = Math.floor(contextWindow * PROMPT_SHARE);
  if (before <= budget) return [...messages];
  const out: ChatMessage[] = messages.map((m) => ({ ...m }) as ChatMessage);
  const fits = () => estimateTokens(out) <= budget;
  // 1. Old tool results, oldest first (the latest exchange stays whole).
  for (let i = 0; i < out.length - 2 && !fits(); i++) {
    const m = out[i];
    if (m?.role !== 'tool' || m.content.startsWith('[tool result')) continue;
    out[i] = {
      ...m,
      content: `[tool result of ${m.toolName} removed to fit the context window: ${m.content.length} characters]`,
    };
  }
  // 2. Peers' answers, shortened evenly until the prompt fits.
  for (let cap = 8_000; !fits() && cap >= MIN_ANSWER_CHARS; cap = Math.floor(cap / 2)) {
    for (let i = 0; i < out.length; i++) {
      const m = out[i];
      if (m?.role === 'user' && m.content.includes('<end of agent'))
        out[i] = { ...m, content: clipAnswers(m.content, cap) };
    }
  }
  onTrim({ contextWindow, beforeTokens: before, afterTokens: estimateTokens(out) });
  return out;
}
