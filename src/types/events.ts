import { z } from 'zod';
export {
  McpServerFailedSchema,
  McpServerReadySchema,
  ToolApprovalRequestedSchema,
  ToolApprovalResolvedSchema,
  ToolCallFinishedSchema,
  ToolCallStartedSchema,
} from './tool-events.js';
import { agentBase, base, ErrorInfoSchema } from './event-base.js';
import {
  McpServerFailedSchema,
  McpServerReadySchema,
  ToolApprovalRequestedSchema,
  ToolApprovalResolvedSchema,
  ToolCallFinishedSchema,
  ToolCallStartedSchema,
} from './tool-events.js';
import { ModelPriceSchema, TokenUsageSchema } from './usage.js';
import { MediaRefSchema } from './media.js';
import { qualityEventSchemas } from './quality-events.js';
import { permissionEventSchemas } from './permission-events.js';
import { steeringEventSchemas } from './steering-events.js';
import { subagentEventSchemas } from './subagent-events.js';
import { agentWorkEventSchemas } from './agent-work-events.js';
import { modelStepEventSchemas } from './model-step-events.js';

/**
 * The run event stream. The orchestrator yields these; every view (logs, terminal, web, server,
 * tests) consumes them. Names are `noun.verb`; text streams use start/delta/end triplets.
 * The log writer stores them as-is in `coordination_events.json`, so a run can be replayed.
 */

export { PhaseSchema, type Phase, ErrorInfoSchema, type ErrorInfo } from './event-base.js';
export {
  ContextCompressedSchema,
  ContextTrimmedSchema,
  StepFinishedSchema,
  StepRetryingSchema,
  StepStartedSchema,
  TextDeltaSchema,
  TextEndSchema,
  TextStartSchema,
} from './model-step-events.js';

export const AgentInfoSchema = z.object({
  agentId: z.string(),
  anonymousId: z.string(),
  backendType: z.string(),
  model: z.string(),
  /** The price used for cost, or null when unknown (cost then counts as 0). */
  price: ModelPriceSchema.nullable().optional(),
});
export type AgentInfo = z.infer<typeof AgentInfoSchema>;

export const TurnOutcomeSchema = z.enum(['answered', 'voted', 'failed', 'aborted']);
export type TurnOutcome = z.infer<typeof TurnOutcomeSchema>;

export const CoordinationEndReasonSchema = z.enum([
  'consensus',
  'single_agent',
  'timeout',
  'budget',
  'all_agents_failed',
  'cancelled',
  /** The run's ceiling on coordination turns was reached (`orchestrator.max_total_turns`). */
  'turn_limit',
  /** The user asked for the best current answer ("answer now": `coordination.answer_now`). */
  'answer_now',
]);
export type CoordinationEndReason = z.infer<typeof CoordinationEndReasonSchema>;

export const RunStatusSchema = z.enum(['completed', 'failed', 'timeout', 'cancelled']);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const RunStartedSchema = z.object({
  ...base,
  type: z.literal('run.started'),
  question: z.string(),
  /** Media the user attached to the question (by path and hash; the bytes are not logged). */
  attachments: z.array(MediaRefSchema).optional(),
  agents: z.array(AgentInfoSchema),
  /** The coordination settings in force (no secrets). */
  settings: z.record(z.string(), z.unknown()),
});

/** Something the user should know before the run goes on: printed by every view, kept in the logs. */
export const RunWarningSchema = z.object({
  /** Stable id, e.g. `unbounded_answers`, `unsupported_key`. */
  code: z.string(),
  message: z.string(),
  /** The config key concerned, dotted, when there is one. */
  key: z.string().optional(),
});
export type RunWarning = z.infer<typeof RunWarningSchema>;

export const RunWarningEventSchema = z.object({
  ...base,
  type: z.literal('run.warning'),
  ...RunWarningSchema.shape,
});

export const TurnStartedSchema = z.object({
  ...agentBase,
  type: z.literal('agent.turn.started'),
  turn: z.number().int().positive(),
  /** Labels of the answers in the agent's view, e.g. `agent2.1`. */
  visibleAnswers: z.array(z.string()),
});

export const PlanningDecisionSchema = z.object({
  agentId: z.string(),
  toolName: z.string(),
  /** True: runs during coordination; false: deferred to the final presenter. */
  allowed: z.boolean(),
  /** `config`: planning_mode_allowed_tools; `annotation`: the tool's own read-only/destructive hints; `analysis`: a model classified it; `default`: no information (deferred to be safe). */
  source: z.enum(['config', 'annotation', 'analysis', 'default']),
});
export type PlanningDecision = z.infer<typeof PlanningDecisionSchema>;

export const PlanningClassifiedSchema = z.object({
  ...base,
  type: z.literal('planning.tools.classified'),
  decisions: z.array(PlanningDecisionSchema),
  /** The agent whose model classified the tools without hints, or null when none needed it. */
  analysisAgentId: z.string().nullable(),
  error: ErrorInfoSchema.optional(),
});

export const WorkflowRejectedSchema = z.object({
  ...agentBase,
  type: z.literal('workflow.rejected'),
  /** The workflow tool that was refused, or null when the model called none. */
  toolName: z.enum(['new_answer', 'vote', 'submit_checklist']).nullable(),
  reason: z.string(),
  retriesLeft: z.number().int().nonnegative(),
});

export const AnswerSubmittedSchema = z.object({
  ...agentBase,
  type: z.literal('answer.submitted'),
  anonymousId: z.string(),
  /** `agent{N}.{k}` */
  label: z.string(),
  content: z.string(),
});

export const VotesResetSchema = z.object({
  ...base,
  type: z.literal('votes.reset'),
  /** The answer label that invalidated the votes. */
  causedBy: z.string(),
  clearedVoters: z.array(z.string()),
});

export const VoteCastSchema = z.object({
  ...agentBase,
  type: z.literal('vote.cast'),
  targetAgentId: z.string(),
  targetAnonymousId: z.string(),
  targetLabel: z.string(),
  reason: z.string(),
  /** False when the voter's view was stale: it is sent the update instead. */
  counted: z.boolean(),
  /** `coordination_mode: decomposition`: the subtask this vote approves (one vote per subtask). */
  subtaskId: z.string().optional(),
});

export const UpdateInjectedSchema = z.object({
  ...agentBase,
  type: z.literal('agent.update.injected'),
  /** Labels of the answers that are new or changed since the agent last looked. */
  labels: z.array(z.string()),
});

export const TurnRestartedSchema = z.object({
  ...agentBase,
  type: z.literal('agent.turn.restarted'),
  reason: z.string(),
});

export const TurnFinishedSchema = z.object({
  ...agentBase,
  type: z.literal('agent.turn.finished'),
  turn: z.number().int().positive(),
  outcome: TurnOutcomeSchema,
  durationMs: z.number().nonnegative(),
  error: ErrorInfoSchema.optional(),
  consecutiveFailures: z.number().int().nonnegative(),
});

export const AgentDroppedSchema = z.object({
  ...agentBase,
  type: z.literal('agent.dropped'),
  reason: z.string(),
});

/** `paraphrase: true`: the question in this agent's own model's words. */
export const QuestionParaphrasedSchema = z.object({
  ...agentBase,
  type: z.literal('agent.question.paraphrased'),
  text: z.string(),
});

/** The wrap-up point of the orchestrator timeout passed: working agents are asked to finish. */
export const WrapUpSchema = z.object({
  ...base,
  type: z.literal('coordination.wrap_up'),
  remainingMs: z.number().nonnegative(),
});

/** `visibility: islands`: each island agreed; the final round among their winners starts. */
export const FinalRoundSchema = z.object({
  ...base,
  type: z.literal('coordination.final_round'),
  /** The island winners' agent ids and answer labels. */
  finalists: z.array(z.object({ agentId: z.string(), label: z.string() })),
});

/** `selection: judge`: the judge's pick (null: no valid pick, the vote winner stands). */
export const SelectionJudgedSchema = z.object({
  ...agentBase,
  type: z.literal('selection.judged'),
  winnerId: z.string().nullable(),
  reason: z.string(),
});

/** `max_orchestration_restarts`: the winner's check of the final answer. */
export const OrchestrationCheckedSchema = z.object({
  ...agentBase,
  type: z.literal('orchestration.checked'),
  accepted: z.boolean(),
  reason: z.string().optional(),
  instructions: z.string().optional(),
});

/** A new attempt starts after the winner sent the final answer back; earlier events stay in the log. */
export const OrchestrationRestartedSchema = z.object({
  ...base,
  type: z.literal('orchestration.restarted'),
  /** The attempt now starting: 2, 3, … */
  attempt: z.number().int().min(2),
  reason: z.string(),
  instructions: z.string(),
});

export const CoordinationFinishedSchema = z.object({
  ...base,
  type: z.literal('coordination.finished'),
  reason: CoordinationEndReasonSchema,
  winnerId: z.string().nullable(),
  winnerLabel: z.string().nullable(),
  /** Counted votes per agent id (only agents with at least one vote). */
  tallies: z.record(z.string(), z.number()),
});

export const PresentationStartedSchema = z.object({
  ...agentBase,
  type: z.literal('presentation.started'),
  mode: z.enum(['present', 'verbatim']),
});

export const PresentationFinishedSchema = z.object({
  ...agentBase,
  type: z.literal('presentation.finished'),
  label: z.string(),
  content: z.string(),
  /** True when the stored answer was used because the presentation failed or was empty. */
  fallback: z.boolean(),
  error: ErrorInfoSchema.optional(),
});

export const RunFinishedSchema = z.object({
  ...base,
  type: z.literal('run.finished'),
  status: RunStatusSchema,
  exitCode: z.number().int(),
  winnerId: z.string().nullable(),
  finalAnswer: z.string().nullable(),
  durationMs: z.number().nonnegative(),
  usage: z.record(z.string(), TokenUsageSchema),
  /** Dollars per agent. */
  costUsd: z.record(z.string(), z.number().nonnegative()),
  error: ErrorInfoSchema.optional(),
});

export const RunEventSchema = z.discriminatedUnion('type', [
  RunStartedSchema,
  RunWarningEventSchema,
  TurnStartedSchema,
  ToolCallStartedSchema,
  ToolCallFinishedSchema,
  ToolApprovalRequestedSchema,
  ToolApprovalResolvedSchema,
  McpServerReadySchema,
  McpServerFailedSchema,
  PlanningClassifiedSchema,
  WorkflowRejectedSchema,
  AnswerSubmittedSchema,
  VotesResetSchema,
  VoteCastSchema,
  UpdateInjectedSchema,
  TurnRestartedSchema,
  TurnFinishedSchema,
  AgentDroppedSchema,
  QuestionParaphrasedSchema,
  WrapUpSchema,
  FinalRoundSchema,
  SelectionJudgedSchema,
  OrchestrationCheckedSchema,
  OrchestrationRestartedSchema,
  CoordinationFinishedSchema,
  PresentationStartedSchema,
  PresentationFinishedSchema,
  RunFinishedSchema,
  ...modelStepEventSchemas,
  ...qualityEventSchemas,
  ...steeringEventSchemas,
  ...permissionEventSchemas,
  ...subagentEventSchemas,
  ...agentWorkEventSchemas,
]);

/** Every event a run emits. Discriminate on `type`. */
export type RunEvent = z.infer<typeof RunEventSchema>;
export type RunEventType = RunEvent['type'];
/** The event of one `type`. */
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;

/** What an emitter supplies; the orchestrator stamps `runId`, `seq` and `ts`. */
export type RunEventInput = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, 'runId' | 'seq' | 'ts'>
    : never
  : never;
