import type { MediaKind } from '../types/media.js';
import type { Backend } from '../types/backend.js';
import type { ToolRegistry } from '../types/tool.js';
import type { ContextCompressor } from '../types/compression.js';
import type { ModelPrice } from '../types/usage.js';
import { defaultChecklistSettings, type ChecklistSettings } from './quality/criteria.js';

export type NoveltyRequirement = 'lenient' | 'balanced' | 'strict';

/** How the coordination behaves. Every field has a default (see {@link defaultCoordinationSettings}). */
export interface CoordinationSettings {
  /** Beyond this many accepted answers an agent must vote. `null`: unlimited. */
  maxNewAnswersPerAgent: number | null;
  answerNoveltyRequirement: NoveltyRequirement;
  /** Extra model calls allowed after a workflow-tool misuse before the turn fails. */
  maxEnforcementRetries: number;
  /** Consecutive failed turns after which an agent is dropped. */
  maxAgentFailures: number;
  /** `inject`: in-flight agents get an update at their next step; `restart`: they start over at once. */
  onNewAnswer: 'inject' | 'restart';
  /** `present`: the winner writes the final answer in one more call; `verbatim`: its stored answer is used. */
  finalPresentation: 'present' | 'verbatim';
  /** Safety cap on model calls within one turn. */
  maxStepsPerTurn: number;
  /**
   * Hard ceiling on coordination turns in one run, over all agents: protects against any loop the
   * answer cap does not catch. `null`: derived from the team size ({@link turnCeiling}).
   */
  maxTotalTurns: number | null;
  /** `null` disables the per-turn timeout. */
  agentTurnTimeoutMs: number | null;
  orchestratorTimeoutMs: number;
  /** Coordination stops (as on the overall timeout) once the run has cost more than this. `null`: no budget. */
  maxCostUsd: number | null;
  /** Planning mode: tools that change the outside world run only in the final presentation. */
  planningMode: boolean;
  /** Tools (exact names or `*` patterns) that may run during coordination in planning mode. */
  planningModeAllowedTools: readonly string[];
  /** Extra text appended to the planning-mode instructions. */
  planningModeInstruction: string | null;
  /** The bar for voting rather than answering, stated in the instructions. */
  votingSensitivity: VotingSensitivity;
  /** `majority`: coordination ends once a strict majority of active agents backs one answer. */
  consensus: 'all' | 'majority';
  /** Fraction of the orchestrator timeout after which working agents are asked to wrap up; null: never. */
  wrapUpAt: number | null;
  /** Whose answers each agent sees. */
  visibility: Visibility;
  /** Peers per agent (`ring`, `random_k`) or agents per island (`islands`). */
  visibilityK: number;
  /** How the final answer is chosen among the candidates. */
  selection: 'vote' | 'judge' | 'synthesize';
  /** The judge's agent id with `selection: judge`; null: the first active agent. */
  judgeAgentId: string | null;
  /** Times the winner may send the team back for another attempt after checking the final answer. */
  maxOrchestrationRestarts: number;
  /** `debug_final_answer`: what the first attempt's check reads instead of the final answer; null: the answer. */
  debugFinalAnswer: string | null;
  /** `skip_coordination_rounds`: the first agent answers directly, as a team of one would. */
  skipCoordinationRounds: boolean;
  /** Agents after the first also read the question paraphrased by their own model. */
  paraphrase: boolean;
  /** `auto`: distinct working styles for agents that share a model. */
  personas: 'auto' | 'none';
  /**
   * How the final answer is made (MassGen's names): the winner presents anew, its answer is reused
   * verbatim, or the top answers are merged. Null: from `finalPresentation` and `selection`.
   */
  finalAnswerStrategy: FinalAnswerStrategy | null;
  /** `decomposition`: one agent splits the task into owned subtasks, votes are per subtask, a presenter assembles. */
  coordinationMode: 'voting' | 'decomposition';
  /** Decomposition: the agent id that assembles the parts; null: the planner (the first active agent). */
  presenterAgentId: string | null;
  /** The checklist gate's criteria and pass mark (`votingSensitivity: checklist_gated`). */
  checklist: ChecklistSettings;
}

export type VotingSensitivity = 'lenient' | 'balanced' | 'strict' | 'checklist_gated';
export type FinalAnswerStrategy = 'winner_present' | 'winner_reuse' | 'synthesize';
export type Visibility = 'all' | 'ring' | 'random_k' | 'islands';

export const defaultCoordinationSettings: CoordinationSettings = {
  maxNewAnswersPerAgent: 3,
  answerNoveltyRequirement: 'lenient',
  maxEnforcementRetries: 2,
  maxAgentFailures: 2,
  onNewAnswer: 'inject',
  finalPresentation: 'present',
  maxStepsPerTurn: 30,
  maxTotalTurns: null,
  agentTurnTimeoutMs: 600_000,
  orchestratorTimeoutMs: 1_800_000,
  maxCostUsd: null,
  planningMode: false,
  planningModeAllowedTools: [],
  planningModeInstruction: null,
  votingSensitivity: 'lenient',
  consensus: 'all',
  wrapUpAt: 0.8,
  visibility: 'all',
  visibilityK: 2,
  selection: 'vote',
  judgeAgentId: null,
  maxOrchestrationRestarts: 0,
  debugFinalAnswer: null,
  skipCoordinationRounds: false,
  paraphrase: false,
  personas: 'none',
  finalAnswerStrategy: null,
  coordinationMode: 'voting',
  presenterAgentId: null,
  checklist: defaultChecklistSettings,
};

/** One team member as the orchestrator sees it: everything arrives through interfaces. */
export interface AgentSpec {
  /** The real id from the config. Models never see it during coordination. */
  id: string;
  backend: Backend;
  systemMessage?: string;
  /** Ordinary tools (MCP, custom, filesystem…). Defaults to none. */
  tools?: ToolRegistry;
  /** Retries of a retryable provider error within one step (default 3). */
  maxRetries?: number;
  /** Prices for cost accounting; omitted: cost counts as 0 (local models, unknown prices). */
  price?: ModelPrice;
  /**
   * The model's context window in tokens: requests are trimmed to fit, and one that cannot fit is not
   * sent (docs/protocol.md, Context limits). Omitted: unknown, never trimmed.
   */
  contextWindow?: number;
  /**
   * Summarises older steps when a request nears the context window or the provider refuses it as too
   * long (`memory.compression`, docs/compression.md). Omitted: requests are only trimmed.
   */
  compressor?: ContextCompressor;
  /** Decomposition: this agent's subtask as the config gives it (all agents need one to skip planning). */
  subtask?: string;
  /**
   * The media kinds this agent's model takes (attachments, `read_media`, screenshots); others are named
   * to it in text. Undefined: every kind (a library user's own backend). The app sets it from the
   * backend's capabilities.
   */
  mediaIn?: readonly MediaKind[];
}

export { systemClock, type Clock } from '../util/clock.js';

/** One earlier turn of a multi-turn session. */
export interface HistoryTurn {
  question: string;
  answer: string;
}

/**
 * The run's turn ceiling. Derived, it allows every agent a first turn, then one more turn per agent for
 * every answer the team may submit (each answer can send everyone back to work), plus room for failed
 * turns: far above what a converging run uses, low enough that a loop ends long before the timeout.
 */
export function turnCeiling(settings: CoordinationSettings, agentCount: number): number {
  if (settings.maxTotalTurns !== null) return settings.maxTotalTurns;
  const answersPerAgent = settings.maxNewAnswersPerAgent ?? 20;
  return agentCount * (agentCount * answersPerAgent + 2 + settings.maxAgentFailures);
}
