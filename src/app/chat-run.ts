import type { HistoryTurn } from '../coordination/index.js';
import { MassGenError } from '../types/errors.js';
import type { MediaPart } from '../types/media.js';
import type { RunEvent } from '../types/events.js';
import type { RunResult } from '../types/run-result.js';
import { addUsage, emptyUsage, type TokenUsage } from '../types/usage.js';
import { createPlainDisplay } from './plain-display.js';
import { prepareRun, type MassGenOptions, type PreparedRun } from './run-massgen.js';
import type { RunLauncher } from './run-launcher.js';

/**
 * A team of agents seen as one chat model: the shared core of `massgen serve` (OpenAI's wire format)
 * and `massgen/ai-sdk` (the AI SDK's). Both turn a conversation into a question with history, and a
 * run's events into a reasoning trace followed by the final answer.
 */

/** One message of a conversation, its content already flattened to text (and a user's media beside it). */
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content: string;
  /** Images, audio, video or PDFs a user message carried (already checked). */
  media?: readonly MediaPart[];
}

/** A conversation that cannot become a run (no user message to answer). */
export class ConversationError extends MassGenError {
  constructor(message: string, hint?: string) {
    super('usage_error', message, hint ? { hint } : {});
    this.name = 'ConversationError';
  }
}

/**
 * The last user message is the question; each earlier user message with the assistant reply after it
 * is a turn of history (consecutive user messages are joined). System and developer messages are
 * instructions the team is given with the question; tool messages belong to the caller's own tool
 * loop and are left out.
 *
 * @throws {ConversationError} when no user message has text.
 */
export function conversationToRun(messages: readonly ChatMessage[]): {
  question: string;
  history: HistoryTurn[];
  /** Every user message's media, in order: history is text, so earlier turns' files go with the question. */
  attachments: MediaPart[];
} {
  const attachments = messages.flatMap((m) => (m.role === 'user' ? (m.media ?? []) : []));
  const instructions: string[] = [];
  const history: HistoryTurn[] = [];
  let asked: string[] = [];
  let answered: string[] = [];
  const closeTurn = () => {
    if (asked.length > 0 && answered.length > 0) {
      history.push({ question: asked.join('\n\n'), answer: answered.join('\n\n') });
      asked = [];
    }
    answered = [];
  };
  for (const message of messages) {
    // A user message of media alone still asks something (`what is in this picture?` may come first).
    const text =
      message.content.trim() ||
      (message.role === 'user' && message.media?.length ? '(see the attached files)' : '');
    if (text === '') continue;
    if (message.role === 'system' || message.role === 'developer') instructions.push(text);
    else if (message.role === 'user') {
      if (answered.length > 0) closeTurn();
      asked.push(text);
    } else if (message.role === 'assistant') answered.push(text);
  }
  if (answered.length > 0 || asked.length === 0) {
    throw new ConversationError(
      'the conversation does not end with a user message to answer',
      'send the question as the last message, with role "user"',
    );
  }
  const question = asked.join('\n\n');
  return {
    question:
      instructions.length === 0
        ? question
        : `${question}\n\nInstructions from the caller:\n${instructions.join('\n\n')}`,
    history,
    attachments,
  };
}

/** What a chat view of a run streams: the coordination trace as reasoning, then the final answer as text. */
export type ChatRunPart = { type: 'reasoning'; text: string } | { type: 'text'; text: string };

/** The usage of every agent of a run, summed. */
export function totalUsage(usage: Readonly<Record<string, TokenUsage>>): TokenUsage {
  return Object.values(usage).reduce(addUsage, emptyUsage());
}

/**
 * Runs the team on a conversation and yields its trace (each agent's text, tool calls, answers, votes
 * and resets, as `massgen --no-display` prints them) as reasoning, then the final answer as text once
 * the run has settled on it — after any orchestration restart, so the text is never taken back.
 * Returns the run's result (look at `status`: a failed run yields no text).
 *
 * @throws a `ConfigError` or {@link ConversationError} at the first `next()`, before anything runs.
 */
export async function* streamChatRun(
  messages: readonly ChatMessage[],
  options: Omit<MassGenOptions, 'question' | 'history'> & {
    /** Runs it elsewhere (e.g. on a queue worker) instead of in this process. */
    launch?: RunLauncher;
    /**
     * Called once the run is prepared here (not with `launch`): a server that must exit before the run
     * ends can still close its logs (`terminateSync`).
     */
    onPrepared?: (run: PreparedRun) => void;
  },
): AsyncGenerator<ChatRunPart, RunResult, undefined> {
  const { question, history, attachments } = conversationToRun(messages);
  const { launch, onPrepared, ...runOptions } = options;
  const withMedia = attachments.length > 0 ? { attachments } : {};
  let events: AsyncGenerator<RunEvent, RunResult, undefined>;
  if (launch) events = await launch({ ...runOptions, question, history, ...withMedia });
  else {
    const prepared = await prepareRun({ ...runOptions, question, history, ...withMedia });
    onPrepared?.(prepared);
    events = prepared.stream();
  }
  let trace = '';
  const display = createPlainDisplay((text) => (trace += text), { trace: true, showReasoning: true });
  let answer: string | null = null;
  let ended = false;
  try {
    for (;;) {
      const next = await events.next();
      if (next.done) {
        ended = true;
        if (answer !== null && answer !== '') yield { type: 'text', text: answer };
        return next.value;
      }
      const event = next.value;
      display(event);
      if (event.type === 'run.finished') answer = event.finalAnswer;
      if (trace !== '') {
        yield { type: 'reasoning', text: trace };
        trace = '';
      }
    }
  } finally {
    // The consumer stopped early: stop the run too (its logs still end in a terminal state).
    if (!ended) await events.return(undefined as never);
  }
}
