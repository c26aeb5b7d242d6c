import { z } from 'zod';

/**
 * The quality loop's part of the run event stream (docs/events.md): the checklist criteria in force,
 * each agent's scores and the gate's verdict on them (`voting_sensitivity: checklist_gated`), the
 * improvement plan an iterating agent states, and the subtask plan of `coordination_mode:
 * decomposition`. Joined into `RunEventSchema` in events.ts; the score matrix every view shows is a
 * reducer over these events (quality-state.ts), so a logged run replays it.
 */

const base = {
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  ts: z.number(),
};
const agentBase = { ...base, agentId: z.string() };

/** How much a criterion matters: `primary` must pass, `standard` should, `stretch` never blocks. */
export const CriterionTierSchema = z.enum(['primary', 'standard', 'stretch']);
export type CriterionTier = z.infer<typeof CriterionTierSchema>;

/** One evaluation criterion as the run uses it: ids `E1` … `En` in order. */
export const CriterionSchema = z.object({
  id: z.string(),
  text: z.string(),
  tier: CriterionTierSchema,
  /** What a weak answer does on this criterion (shown to the scorers). */
  antiPatterns: z.array(z.string()),
});
export type Criterion = z.infer<typeof CriterionSchema>;

/** Where the criteria came from, in the order they are looked for. */
export const CriteriaSourceSchema = z.enum(['config', 'file', 'preset', 'generated', 'fallback']);
export type CriteriaSource = z.infer<typeof CriteriaSourceSchema>;

/** The criteria every checklist of the run scores against (emitted once, before the first turn). */
export const ChecklistCriteriaSchema = z.object({
  ...base,
  type: z.literal('checklist.criteria'),
  source: CriteriaSourceSchema,
  /** The preset's name with `source` `preset` or `fallback`. */
  preset: z.string().nullable(),
  /** What an excellent answer achieves overall, when the criteria came with one. */
  aspiration: z.string().nullable(),
  criteria: z.array(CriterionSchema),
  /** The agent whose model wrote them (`generated`), else null. */
  generatedBy: z.string().nullable(),
  /** The score (0–10) a primary criterion needs; standard ones need one less. */
  threshold: z.number().int(),
});

export const ChecklistScoreSchema = z.object({
  targetAgentId: z.string(),
  targetLabel: z.string(),
  criterionId: z.string(),
  score: z.number().int().min(0).max(10),
  reason: z.string(),
});
export type ChecklistScore = z.infer<typeof ChecklistScoreSchema>;

/** One agent scored the answers in its view (`submit_checklist`). */
export const ChecklistSubmittedSchema = z.object({
  ...agentBase,
  type: z.literal('checklist.submitted'),
  /** The scorer's checklist round: its 1st, 2nd … checklist of the attempt. */
  round: z.number().int().positive(),
  /** The candidates' agent ids in the order the scorer was shown them. */
  order: z.array(z.string()),
  scores: z.array(ChecklistScoreSchema),
});

/** The gate's decision on one checklist. */
export const ChecklistVerdictSchema = z.object({
  ...agentBase,
  type: z.literal('checklist.verdict'),
  round: z.number().int().positive(),
  verdict: z.enum(['iterate', 'converge']),
  /** `scores`: the gate decided; `answer_limit`: the agent may not answer again, so it converges. */
  basis: z.enum(['scores', 'answer_limit']),
  bestAgentId: z.string(),
  bestLabel: z.string(),
  /** Weighted mean score (0–10) of each candidate, by agent id. */
  aggregates: z.record(z.string(), z.number()),
  /** Criteria the best answer fails (ids). */
  failing: z.array(z.string()),
  /** Criteria demoted because they do not discriminate between answers (ids). */
  demoted: z.array(z.string()),
});

/** An iterating agent's improvement plan, stated with the answer it led to. */
export const ChecklistPlanSchema = z.object({
  ...agentBase,
  type: z.literal('checklist.plan'),
  round: z.number().int().positive(),
  plan: z.string(),
});

export const SubtaskSchema = z.object({
  /** `S1` … `Sn`. */
  id: z.string(),
  title: z.string(),
  description: z.string(),
  ownerId: z.string(),
  ownerAnonymousId: z.string(),
});
export type Subtask = z.infer<typeof SubtaskSchema>;

/** `coordination_mode: decomposition`: the subtasks and their owners, before the first turn. */
export const DecompositionPlannedSchema = z.object({
  ...base,
  type: z.literal('decomposition.planned'),
  /** The agent whose model proposed the plan, or null when the config gave each agent its `subtask`. */
  plannerId: z.string().nullable(),
  /** The agent that assembles the parts into the final answer. */
  presenterId: z.string(),
  subtasks: z.array(SubtaskSchema),
});

export const qualityEventSchemas = [
  ChecklistCriteriaSchema,
  ChecklistSubmittedSchema,
  ChecklistVerdictSchema,
  ChecklistPlanSchema,
  DecompositionPlannedSchema,
] as const;
