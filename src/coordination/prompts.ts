import type { ToolDefinition } from '../types/messages.js';
import type { HistoryTurn, VotingSensitivity } from './settings.js';

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

/**
 * The bar for voting, per `voting_sensitivity`. Lenient votes readily (fast, fewest steps); strict
 * votes only for an answer with nothing left to fix (slower, more revisions). docs/protocol.md gives the
 * measured steps to consensus of each.
 */
export const VOTING_BAR: Record<VotingSensitivity, string> = {
  lenient:
    'VOTING BAR (lenient): vote as soon as one answer is correct and complete enough for the user. Do not submit a new answer for style or small additions.',
  balanced:
    'VOTING BAR (balanced): vote when an answer is correct, complete and clear. Submit a new answer when you can fix an error, fill a real gap, or make it clearly better organised.',
  strict:
    'VOTING BAR (strict): vote only for an answer you could not improve in any way that matters — checked, complete, precise and well argued. If you can name a concrete flaw or omission, fix it with `new_answer`.',
  checklist_gated:
    'VOTING BAR (checklist_gated): your checklist decides — score the answers against the criteria with `submit_checklist`, then do what its verdict says.',
};

/** How one agent's coordination instructions are tuned. */
export interface InstructionOptions {
  sensitivity?: VotingSensitivity;
  /** A working style that sets this agent apart from peers on the same model. */
  persona?: string | null;
}

/** The system prompt for a coordination turn. */
export function coordinationSystemPrompt(
  systemMessage: string | undefined,
  planning: PlanningNote | null = null,
  options: InstructionOptions = {},
): string {
  const parts = [
    coordinationInstructions,
    VOTING_BAR[options.sensitivity ?? 'lenient'],
    ...(planning ? [planningInstructions(planning)] : []),
    ...(options.persona ? [`YOUR WORKING STYLE: ${options.persona}`] : []),
  ];
  const instructions = parts.join('\n\n');
  return systemMessage ? `${systemMessage.trim()}\n\n${instructions}` : instructions;
}

/** Working styles for `personas: auto`, handed out in order to agents that share a model. */
export const AUTO_PERSONAS: readonly string[] = [
  'a rigorous analyst: check every claim and calculation, and prefer correctness over breadth.',
  'a pragmatic practitioner: favour what works in practice, concrete steps and examples.',
  'a critical reviewer: look for what is missing, wrong or risky in every answer, including your own.',
  'a creative generalist: consider unusual angles and alternatives before settling.',
  'a concise editor: make answers clear, well structured and free of padding.',
  'a domain expert: bring in precise terminology, standards and known pitfalls.',
];

/** The one-off request that paraphrases the question for `paraphrase: true`. */
export function paraphrasePrompt(question: string): { system: string; user: string } {
  return {
    system:
      "Rewrite the user's task in your own words. Keep every requirement, constraint, number and name; add nothing. Reply with the rewritten task only.",
    user: question,
  };
}

/** Extra context for an agent's opening message. */
export interface OpeningExtras {
  /** The same question in other words (`paraphrase: true`). */
  paraphrase?: string | null;
  /** Reasons and instructions from earlier attempts that the winner sent back. */
  restarts?: readonly { reason: string; instructions: string }[];
  /** Remaining time and budget. */
  clock?: string | null;
}

export function historyBlock(history: readonly HistoryTurn[]): string {
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
  extras: OpeningExtras = {},
): string {
  const paraphrase = extras.paraphrase
    ? `\n\n<THE SAME TASK IN OTHER WORDS>\n${extras.paraphrase}\n<END OF THE SAME TASK IN OTHER WORDS>`
    : '';
  const restarts = restartBlock(extras.restarts ?? []);
  const clock = extras.clock ? `\n\n${extras.clock}` : '';
  return `${historyBlock(history)}<ORIGINAL MESSAGE>\n${question}\n<END OF ORIGINAL MESSAGE>${paraphrase}${restarts}\n\n<CURRENT ANSWERS from the agents>\n${answersBlock(answers)}\n<END OF CURRENT ANSWERS>${clock}`;
}

/** Why earlier attempts were sent back, for every later prompt of the run ('' when none were). */
export function restartBlock(restarts: readonly { reason: string; instructions: string }[]): string {
  if (restarts.length === 0) return '';
  const items = restarts
    .map((r, i) => `Attempt ${i + 1} was not accepted: ${r.reason}\nInstructions: ${r.instructions}`)
    .join('\n\n');
  return `\n\n<EARLIER ATTEMPTS WERE SENT BACK>\n${items}\n<END OF EARLIER ATTEMPTS>`;
}

/** Sent once into a working agent's turn when the orchestrator timeout is near (`wrap_up_at`). */
export function wrapUpMessage(remainingMs: number): string {
  return `TIME IS NEARLY UP: about ${Math.max(0, Math.round(remainingMs / 1000))}s remain before coordination stops. Finish now with what you have: \`vote\` for the best current answer, or \`new_answer\` with your complete answer as it stands. Do not start new work.`;
}

/** Opens the turns of the final round among island winners. */
export function finalRoundNote(): string {
  return 'FINAL ROUND: the answers above are the winners of each group of agents. Vote for the best one with `vote`; new answers are closed.';
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
  finalRoundOnly: 'The final round is for voting only: vote for the best of the finalists with `vote`.',
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
  hookDenied: (name: string, hook: string | undefined, reason: string | undefined) =>
    `The call to ${name} was blocked by the user's hook ${hook ?? ''}${reason ? `: ${reason}` : ''}. Do not retry it unchanged; continue without it or try another approach.`,
  /** What a hook added for the model (docs/hooks.md): the user's own check, quoted, not the tool's output. */
  hookContext: (text: string) => `[Added by the user's hook, not by the tool]\n${text}`,
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

export function presentationSystemPrompt(
  systemMessage: string | undefined,
  planningMode = false,
  synthesize = false,
): string {
  const base = `The team of agents has finished coordinating and chose your answer as the best. Now write the final answer for the user.
Use the other answers and the voters' reasons to make it as complete and correct as possible. Write the answer itself — do not mention the agents, the votes or this process.`;
  const merge = synthesize
    ? `\nSYNTHESIS: do not just restate your answer. Merge the best parts of ALL the answers into one: keep every correct point any agent made, resolve their disagreements explicitly, and drop what is wrong.`
    : '';
  const plan = planningMode
    ? `\nPlanning is over: carry out the plan now. Tool calls that were only recorded during planning really run now — make the calls the plan needs, then write the final answer.`
    : '';
  const instructions = `${base}${merge}${plan}`;
  return systemMessage ? `${systemMessage.trim()}\n\n${instructions}` : instructions;
}

/** The tool a judge calls with `selection: judge`. */
export const PICK_ANSWER = 'pick_answer';

/** The judge's request: pick the best of the candidates (anonymous ids only). */
export function judgePrompt(
  question: string,
  candidates: readonly ViewAnswer[],
): { system: string; user: string; tool: ToolDefinition } {
  return {
    system:
      'You are the judge of a team of AI agents. Read the task and the candidate answers, then pick the single best answer: the most correct, complete and useful one. Judge the content, not the length.',
    user: `<ORIGINAL MESSAGE>\n${question}\n<END OF ORIGINAL MESSAGE>\n\n<CANDIDATE ANSWERS>\n${answersBlock(candidates)}\n<END OF CANDIDATE ANSWERS>\n\nCall ${PICK_ANSWER} with the id of the best answer and why.`,
    tool: {
      name: PICK_ANSWER,
      description: 'Pick the best candidate answer.',
      parameters: {
        type: 'object',
        properties: {
          agent_id: { type: 'string', enum: candidates.map((c) => c.anonymousId) },
          reason: { type: 'string' },
        },
        required: ['agent_id', 'reason'],
        additionalProperties: false,
      },
    },
  };
}

/** The tools the winner checks its final answer with (`max_orchestration_restarts`). */
export const ACCEPT_ANSWER = 'accept_answer';
export const REQUEST_RESTART = 'request_restart';

/** The winner's check of the final answer against the question. */
export function finalCheckPrompt(
  question: string,
  finalAnswer: string,
  restartsLeft: number,
): { system: string; user: string; tools: ToolDefinition[] } {
  return {
    system: `You check a team's final answer before it goes to the user. Accept it when it fully and correctly answers the task. Ask for another attempt only for a real problem — a wrong result, a missed requirement — and say precisely what the team must do differently. Attempts left: ${restartsLeft}.`,
    user: `<ORIGINAL MESSAGE>\n${question}\n<END OF ORIGINAL MESSAGE>\n\n<FINAL ANSWER>\n${finalAnswer}\n<END OF FINAL ANSWER>\n\nCall ${ACCEPT_ANSWER} or ${REQUEST_RESTART}.`,
    tools: [
      {
        name: ACCEPT_ANSWER,
        description: 'The final answer fully answers the task.',
        parameters: { type: 'object', properties: {}, additionalProperties: false },
      },
      {
        name: REQUEST_RESTART,
        description: 'Send the team back for another attempt.',
        parameters: {
          type: 'object',
          properties: {
            reason: { type: 'string', description: 'What is wrong with the final answer.' },
            instructions: { type: 'string', description: 'What the team must do differently.' },
          },
          required: ['reason', 'instructions'],
          additionalProperties: false,
        },
      },
    ],
  };
}

export function presentationUserMessage(
  question: string,
  history: readonly HistoryTurn[],
  answers: readonly PresentationAnswer[],
  votes: readonly PresentationVote[],
  restarts: readonly { reason: string; instructions: string }[] = [],
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
  return `${historyBlock(history)}<ORIGINAL MESSAGE>\n${question}\n<END OF ORIGINAL MESSAGE>${restartBlock(restarts)}\n\n<ALL CURRENT ANSWERS>\n${answerText}\n<END OF ALL CURRENT ANSWERS>\n\n<VOTES FOR YOUR ANSWER>\n${voteText}\n<END OF VOTES>\n\nWrite the final answer now.`;
}
