import type { MediaPart } from '../types/media.js';
import type { MediaForAgent } from './media-filter.js';
import type { Phase, RunEventInput } from '../types/events.js';
import type { ToolApprover, ToolHooks, ToolPolicy } from '../types/tool.js';
import type { WorkspaceHooks } from '../types/workspace.js';
import type { TokenUsage } from '../types/usage.js';
import type { CoordinationState } from './coordination-state.js';
import type { PlanningPolicy } from './planning-policy.js';
import type { HumanInbox } from './human-inbox.js';
import type { DecompositionPlan } from './quality/decomposition-plan.js';
import type { QualityBook } from './quality/quality-book.js';
import type { TurnPolicy } from './quality/turn-policy.js';
import type { Clock, CoordinationSettings, HistoryTurn } from './settings.js';

/** What the step, turn and presentation modules share during one run. */
export interface RunContext {
  readonly question: string;
  readonly history: readonly HistoryTurn[];
  readonly settings: CoordinationSettings;
  readonly state: CoordinationState;
  readonly clock: Clock;
  /** Set in planning mode once the tools are classified; null otherwise. */
  readonly planning: PlanningPolicy | null;
  /** Holds tool calls for approval; undefined: every call runs. */
  readonly approver: ToolApprover | undefined;
  /** The permission rules (docs/permissions.md); undefined: only the approver decides. */
  readonly toolPolicy?: ToolPolicy | undefined;
  /** The user's PreToolUse/PostToolUse hooks (docs/hooks.md); undefined: none. */
  readonly toolHooks?: ToolHooks | undefined;
  /** The run's id (the hooks' `session_id`). */
  readonly runId: string;
  /** The agents' workspaces; undefined when no agent has one. */
  readonly workspaces: WorkspaceHooks | undefined;
  /** Emits an event (secrets scrubbed from every string in it). */
  emit(event: RunEventInput): void;
  /** Masks every secret the run knows: applied to tool results before a model reads them. */
  scrub(text: string): string;
  /** Records a model call's usage; returns its cost in dollars (and may stop coordination on budget). */
  addUsage(agentId: string, usage: TokenUsage): number;
  /** The question's attachments (empty without). */
  readonly attachments: readonly MediaPart[];
  /** The part of `media` this agent's model takes, and a note naming the rest. */
  mediaFor(agentId: string, media: readonly MediaPart[]): MediaForAgent;
  /** Records dollars a tool call spent at a provider (and may stop coordination on budget). */
  addToolCost(agentId: string, dollars: number): void;
  /** Called right after an answer is accepted, so in-flight turns can be restarted when configured. */
  answerAccepted(agentIndex: number): void;
  /** True once the wrap-up point of the orchestrator timeout has passed (`wrap_up_at`). */
  wrapUpRequested(): boolean;
  /** Milliseconds until the orchestrator timeout. */
  remainingMs(): number;
  /** Remaining time (and budget, when there is one), as a line for the agents. */
  budgetNote(): string;
  /** The question in other words for this agent (`paraphrase: true`), or null. */
  paraphraseFor(agentIndex: number): string | null;
  /** This agent's working style (`personas: auto`), or null. */
  personaFor(agentIndex: number): string | null;
  /** What the winner said when it sent earlier attempts back (`max_orchestration_restarts`). */
  readonly restartNotes: readonly { reason: string; instructions: string }[];
  /** The checklist gate's criteria and scores (`checklist_gated`), else null. */
  readonly quality: QualityBook | null;
  /** The subtasks and their owners (`coordination_mode: decomposition`), else null. */
  readonly decomposition: DecompositionPlan | null;
  /**
   * Picks a coordination turn's policy (checklist gate or decomposition); set with `quality` or
   * `decomposition`, whose modules load only for a run that has one (absent: plain voting).
   */
  readonly turnPolicy?: TurnPolicyPicker;
  /** The user's steering messages (docs/protocol.md "Steering"); absent where nobody can steer. */
  readonly inbox?: HumanInbox;
}

/** Picks the policy of one agent's coordination turn (`turnPolicyFor`), null for plain voting. */
export type TurnPolicyPicker = (
  ctx: RunContext,
  agentIndex: number,
  finalRound: boolean,
) => TurnPolicy | null;

export interface StepTarget {
  agentIndex: number;
  phase: Phase;
}
