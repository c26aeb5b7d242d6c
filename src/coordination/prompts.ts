import type { ToolDefinition } from '../types/messages.js';
import type { HistoryTurn } from './settings.js';

/**
 * Every text the models read during a run, in one place so the wording can be reviewed and tuned
 * without touching the loop.
 */

export interface ViewAnswer {
  anonymousId: string;
  content: string;
}

const coordinationInstructions = `You are one of several AI agents working on the same task in parallel. Each agent sees the others' latest answers (under anonymous ids such as agent1, agent2).

How to work:
1. Work on the task in the ORIGINAL MESSAGE. You may use your other tools first.
2. Read the CURRENT ANSWERS carefully.
3. Then finish your turn with exactly one workflow tool call:
   - \`vote\` for the best current answer (you may vote for your own) when it is already complete and correct — prefer this;
   - \`new_answer\` with a complete, improved answer when you can clearly do better than every current answer.
Submitting a new answer resets all votes, so everyone must look again. Never write your answer only as plain text: it only counts when submitted through \`new_answer\`.`;

/** Planning mode as one agent's coordination turn sees it. */
export interface PlanningNote {
  /** Tools whose calls are recorded, not run, during coordination. */
  deferred: readonly string[];
  instruction: string | null;
}

function planningInstructions(note: PlanningNote): string {
  const which =
    note.deferred.length === 0
      ? 'Calls to tools that would change something outside this conversation are'
      : `These tools change things outside this conversation: ${note.deferred.join(', ')}. Calls to them are`;
  const extra = note.instruction ? `\n${note.instruction.trim()}` : '';
  return `PLANNING MODE: the team is still deciding what to do. ${which} not executed now — each call is only recorded as part of your plan. Tools that only read work normally. Make your answer a precise plan: say exactly which actions (tool calls and arguments) should be taken and why. The agent whose answer wins will carry the plan out.${extra}`;
}

/** The system prompt for a coordination turn. */
export function coordinationSystemPrompt(
  systemMessage: string | undefined,
  planning: PlanningNote | null = null,
): string {
  const instructions = planning
    ? `${coordinationInstructions}\n\n${planningInstructions(planning)}`
    : coordinationInstructions;
  return systemMessage ? `${systemMessage.trim()}\n\n${instructions}` : instructions;
}

function historyBlock(history: readonly HistoryTurn[]): string {
  if (history.length === 0) return '';
  const turns = history
    .map((turn, i) => `[Turn ${i + 1}]\nUser: ${turn.question}\nFinal answer: ${turn.answer}`)
    .join('\n\n');
  return `<CONVERSATION SO FAR>\n${turns}\n<END OF CONVERSATION SO FAR>\n\n`;
}

/** Formats answers as blocks introduced by their anonymous ids. */
export function answersBlock(answers: readonly ViewAnswer[]): string {
  if (answers.length === 0) return '(no answers have been submitted yet — you will be the first)';
  return answers.map((a) => `<${a.anonymousId}>\n${a.content}\n<end of ${a.anonymousId}>`).join('\n\n');
}

/** The user message that opens a coordination turn. */
export function coordinationUserMessage(
  question: string,
  history: readonly HistoryTurn[],
  answers: readonly ViewAnswer[],
): string {
  return `${historyBlock(history)}<ORIGINAL MESSAGE>\n${question}\n<END OF ORIGINAL MESSAGE>\n\n<CURRENT ANSWERS from the agents>\n${answersBlock(answers)}\n<END OF CURRENT ANSWERS>`;
}

/**
 * Added to the opening message of an agent that has used up its answers: `new_answer` is no longer in
 * its tool list, and this says why, so it does not keep trying to improve.
 */
export function voteOnlyNote(limit: number): string {
  return `VOTE ONLY: you have already submitted the maximum of ${limit} answer${limit === 1 ? '' : 's'} allowed per agent, so \`new_answer\` is no longer available to you. Read the current answers and finish your turn with \`vote\` for the best one (your own included).`;
}

/** Sent into an in-flight turn when answers changed since the agent last looked. */
export function updateMessage(changed: readonly ViewAnswer[], votableIds: readonly string[]): string {
  return `UPDATE: while you were working, new or revised answers were submitted. All earlier votes were reset.\n\n<NEW OR CHANGED ANSWERS>\n${answersBlock(changed)}\n<END OF NEW OR CHANGED ANSWERS>\n\nYou can now vote for: ${votableIds.join(', ')}. Take these answers into account, then finish with exactly one of \`new_answer\` or \`vote\`.`;
}

export const enforcement = {
  noWorkflowCall:
    'You did not finish your turn. Call exactly one workflow tool: `vote` for the best current answer, or `new_answer` with a complete improved answer.',
  twoWorkflowCalls:
    'Call exactly one workflow tool per turn: either `new_answer` or `vote`, not several. None of these calls was accepted; try again with one.',
  voteBeforeAnswers: 'There are no answers to vote for yet. Submit your answer with `new_answer`.',
  unknownVoteTarget: (given: string, votable: readonly string[]) =>
    `"${given}" is not an agent with a current answer. Vote for one of: ${votable.join(', ')}.`,
  answerLimit: (limit: number) =>
    `You have already submitted the maximum of ${limit} answers. Vote for the best current answer with \`vote\` instead.`,
  unknownTool: (name: string) => `There is no tool named "${name}". Use only the tools you were given.`,
  staleVote: (update: string) =>
    `Your vote was not counted because the answers changed since you last looked.\n\n${update}`,
  tooManySteps: (max: number) => `The turn used more than ${max} model calls without finishing.`,
  deferredCall: (name: string) =>
    `PLANNING MODE: ${name} was not executed. The call is recorded as part of your plan; describe it in your answer, and the final presenter will carry it out.`,
  deniedCall: (name: string, reason: string | undefined) =>
    `The call to ${name} was not approved${reason ? `: ${reason}` : ''}. Do not retry it unchanged; continue without it or try another approach.`,
};

/** The tool the planning-mode analysis asks a model to call. */
export const CLASSIFY_TOOLS = 'classify_tools';

/** The one-off question that sorts tools without hints into read-only and world-changing. */
export function classificationPrompt(
  question: string,
  tools: readonly ToolDefinition[],
): { system: string; user: string; tool: ToolDefinition } {
  const list = tools.map((t) => `- ${t.name}: ${t.description.trim() || '(no description)'}`).join('\n');
  return {
    system:
      'You sort tools for a team of AI agents that plans before it acts. A tool is read-only when calling it cannot change anything outside the conversation: it does not write, delete, move or upload files, send messages, change records, spend money or start processes with side effects. When unsure, the tool is NOT read-only.',
    user: `The team's task:\n${question}\n\nTools:\n${list}\n\nCall ${CLASSIFY_TOOLS} with the names of the read-only tools (an empty list if there are none).`,
    tool: {
      name: CLASSIFY_TOOLS,
      description: 'Report which of the listed tools are read-only.',
      parameters: {
        type: 'object',
        properties: {
          read_only_tools: {
            type: 'array',
            items: { type: 'string', enum: tools.map((t) => t.name) },
            description: 'Names of the tools that cannot change anything outside the conversation.',
          },
        },
        required: ['read_only_tools'],
        additionalProperties: false,
      },
    },
  };
}

/** The single-agent shortcut: no workflow tools, the reply is the answer. */
export function directSystemPrompt(systemMessage: string | undefined): string {
  return systemMessage?.trim() || 'You are a helpful assistant. Answer the user completely and accurately.';
}

export function directUserMessage(question: string, history: readonly HistoryTurn[]): string {
  return history.length === 0 ? question : `${historyBlock(history)}${question}`;
}

export interface PresentationAnswer {
  agentId: string;
  anonymousId: string;
  content: string;
  isOwn: boolean;
}

export interface PresentationVote {
  voterAnonymousId: string;
  reason: string;
}

export function presentationSystemPrompt(systemMessage: string | undefined, planningMode = false): string {
  const base = `The team of agents has finished coordinating and chose your answer as the best. Now write the final answer for the user.
Use the other answers and the voters' reasons to make it as complete and correct as possible. Write the answer itself — do not mention the agents, the votes or this process.`;
  const instructions = planningMode
    ? `${base}\nPlanning is over: carry out the plan now. Tool calls that were only recorded during planning really run now — make the calls the plan needs, then write the final answer.`
    : base;
  return systemMessage ? `${systemMessage.trim()}\n\n${instructions}` : instructions;
}

export function presentationUserMessage(
  question: string,
  history: readonly HistoryTurn[],
  answers: readonly PresentationAnswer[],
  votes: readonly PresentationVote[],
): string {
  const answerText = answers
    .map(
      (a) =>
        `<${a.agentId} (${a.anonymousId})${a.isOwn ? ' — YOUR ANSWER' : ''}>\n${a.content}\n<end of ${a.agentId}>`,
    )
    .join('\n\n');
  const voteText =
    votes.length === 0
      ? '(no votes were counted)'
      : votes.map((v) => `- ${v.voterAnonymousId}: ${v.reason || '(no reason given)'}`).join('\n');
  return `${historyBlock(history)}<ORIGINAL MESSAGE>\n${question}\n<END OF ORIGINAL MESSAGE>\n\n<ALL CURRENT ANSWERS>\n${answerText}\n<END OF ALL CURRENT ANSWERS>\n\n<VOTES FOR YOUR ANSWER>\n${voteText}\n<END OF VOTES>\n\nWrite the final answer now.`;
}
