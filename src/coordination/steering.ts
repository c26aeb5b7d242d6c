import type { ChatMessage } from '../types/messages.js';
import {
  MAX_STEERING_TEXT_LENGTH,
  type AnswerNowResult,
  type SteeringMessage,
  type SteeringRefusal,
} from '../types/steering-events.js';
import type { CoordinationState } from './coordination-state.js';
import type { RunContext } from './run-context.js';

/**
 * Steering (docs/protocol.md): messages from the user while a run works, and "answer now". The run
 * accepts a message (`human.message`); each agent it is for reads it at its next model step, as a
 * clearly marked note from the user (`human.message.delivered`), and again at the start of every
 * later conversation of that agent (its next turns, its presentation), so the guidance holds.
 */

/** One message as the model reads it: marked as the user's, never to be taken for a peer's answer. */
export function humanMessageNote(text: string): string {
  return `[Message from the user] (sent while the team works — this is not another agent's answer; take it into account in what you do next)\n${text}\n[End of message from the user]`;
}

/**
 * The user's messages this agent has not read, as the text to add to its conversation; each is marked
 * read and reported (`human.message.delivered`). Null when there is none.
 */
export function deliverHumanMessages(ctx: RunContext, agentIndex: number): string | null {
  const inbox = ctx.inbox;
  if (!inbox) return null;
  const pending = inbox.pending(agentIndex);
  if (pending.length === 0) return null;
  const agentId = ctx.state.agent(agentIndex).spec.id;
  for (const message of pending) {
    inbox.markRead(agentIndex, message.seq);
    ctx.emit({ type: 'human.message.delivered', agentId, messageSeq: message.seq });
  }
  return pending.map((m) => humanMessageNote(m.text)).join('\n\n');
}

/** The messages this agent read in earlier conversations, restated at the start of a new one; or null. */
export function earlierHumanMessages(ctx: RunContext, agentIndex: number): string | null {
  const earlier = ctx.inbox?.delivered(agentIndex) ?? [];
  if (earlier.length === 0) return null;
  return [
    'Earlier in this run the user sent you these messages; they still apply:',
    ...earlier.map((m) => humanMessageNote(m.text)),
  ].join('\n\n');
}

/**
 * Adds a note from massgen to the conversation: into the last message when that is already the user's
 * (no two user messages in a row), else as a new user message.
 */
export function addUserNote(messages: ChatMessage[], note: string): void {
  const last = messages.at(-1);
  if (last?.role === 'user')
    messages[messages.length - 1] = { ...last, content: `${last.content}\n\n${note}` };
  else messages.push({ role: 'user', content: note });
}

/** The answer to a vote cast before the agent read a message from the user: it is not counted. */
export const voteBeforeMessage = (note: string): string =>
  `Your vote was not counted: the user sent a message you had not read yet.\n\n${note}\n\nTake it into account, then vote again or submit a better answer.`;

type Refused = { accepted: false; reason: SteeringRefusal; message: string };
const refuse = (reason: SteeringRefusal, message: string): Refused => ({ accepted: false, reason, message });

/** A message checked against the run: its trimmed text and target index (null: every agent), or why not. */
export function checkSteering(
  state: CoordinationState,
  message: SteeringMessage,
  running: boolean,
): { accepted: true; text: string; target: number | null } | Refused {
  if (!running) return refuse('not_running', 'the run is not running (not started yet, or finished)');
  const text = typeof message.text === 'string' ? message.text.trim() : '';
  if (text === '' || text.length > MAX_STEERING_TEXT_LENGTH)
    return refuse(
      'invalid_text',
      `a message must have 1 to ${MAX_STEERING_TEXT_LENGTH} characters (got ${text.length})`,
    );
  if (message.agentId === undefined) return { accepted: true, text, target: null };
  const agent = state.agents.find((a) => a.spec.id === message.agentId);
  if (!agent)
    return refuse(
      'unknown_agent',
      `no agent "${message.agentId}" in this run: the agents are ${state.agents.map((a) => a.spec.id).join(', ')}`,
    );
  if (agent.dropped)
    return refuse('agent_dropped', `${agent.spec.id} was dropped from the run and takes no more steps`);
  return { accepted: true, text, target: agent.index };
}

/** Whether "answer now" can act: coordination runs and some agent has answered. */
export function checkAnswerNow(options: {
  running: boolean;
  coordinating: boolean;
  hasAnswer: boolean;
}): AnswerNowResult {
  if (!options.running) return refuse('not_running', 'the run is not running (not started yet, or finished)');
  if (!options.coordinating)
    return refuse(
      'not_coordinating',
      'coordination is not running (the final answer is already being presented, or this run has a single agent)',
    );
  if (!options.hasAnswer)
    return refuse(
      'no_answer',
      'no agent has answered yet: there is nothing to present — try again in a moment',
    );
  return { accepted: true };
}

/** Abort reason of the turns that "answer now" stopped. */
export class AnswerNowRequested extends Error {
  constructor() {
    super('the user asked for the answer now');
    this.name = 'AnswerNowRequested';
  }
}
