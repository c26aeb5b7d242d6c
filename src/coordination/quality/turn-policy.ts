import type { ToolCall, ToolDefinition } from '../../types/messages.js';
import type { SeenAnswers } from '../coordination-state.js';
import type { ViewAnswer } from '../prompts.js';

/**
 * What a coordination mode changes in one agent's turn, so the turn loop (agent-turn.ts) stays one
 * loop: the checklist gate (`checklist_gated`) and decomposition each implement it; plain voting has
 * none. Every method is optional except the tools.
 */
export interface TurnPolicy {
  /** Added to the coordination system prompt. */
  systemNote?(): string | null;
  /** Added to the opening user message. */
  openingNotes?(): string[];
  /** The answers of the opening message in the order this mode wants (default: the usual rotation). */
  view?(seen: SeenAnswers): ViewAnswer[] | null;
  /** The workflow tools of this step (replaces the default new_answer/vote pair). */
  tools(votableIds: readonly string[], mayAnswer: boolean, seen: SeenAnswers): ToolDefinition[];
  /** Tool names this policy handles itself (they neither run in the registry nor end the turn). */
  readonly ownCalls: ReadonlySet<string>;
  /** Handles one of {@link ownCalls}: the tool result, and the refusal reason when it was refused. */
  handleCall?(call: ToolCall, seen: SeenAnswers): { content: string; refused: string | null };
  /** The view was refreshed (an update arrived): what was decided on the old view no longer holds. */
  viewChanged?(): void;
  /** Added to the update message: what to do now (null: the update's own words). */
  afterUpdate?(): string | null;
  /** What a step without a workflow call is told (null: the default reminder). */
  noWorkflowCall?(seen: SeenAnswers): string | null;
  /** Before a `new_answer` is accepted: a refusal, or the improvement plan that comes with it. */
  checkAnswer?(call: ToolCall, seen: SeenAnswers): { refusal: string } | { plan: string | null };
  /** Right before `answer.submitted` is emitted for an accepted answer. */
  answerAccepted?(plan: string | null): void;
  /** Before a plain vote is counted: a refusal, or null. */
  checkVote?(targetIndex: number): string | null;
  /** Takes over `vote` entirely (decomposition's per-subtask votes). */
  vote?(call: ToolCall, turn: VoteTurn): Promise<'voted' | 'continue'>;
}

/** What a policy's own vote handling needs from the turn. */
export interface VoteTurn {
  seen: SeenAnswers;
  /** True when the voter's view is current. */
  current: boolean;
  /** Answers the call with a tool result (an error counts against the enforcement retries). */
  refuse(reason: string): void;
  /** Answers a stale vote with the update, at no retry cost. */
  stale(): Promise<void>;
}
