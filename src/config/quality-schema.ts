import { z } from 'zod';
import { CRITERIA_PRESETS } from '../types/criteria-schema.js';

/**
 * The quality loop's config keys (MassGen's names), spread into the orchestrator and coordination
 * sections of schema.ts: the checklist gate's criteria, the final-answer strategy and decomposition.
 */

/**
 * One criterion of `checklist_criteria_inline`, as MassGen writes it: `text`, a tier (`category` in
 * MassGen, whose older `must`/`should`/`could` mean primary/standard/stretch) and `anti_patterns`.
 */
export const InlineCriterionSchema = z.strictObject({
  text: z.string().trim().min(1),
  tier: z.enum(['primary', 'standard', 'stretch']).optional(),
  /** MassGen's name for the tier. */
  category: z.enum(['primary', 'standard', 'stretch', 'must', 'should', 'could']).optional(),
  anti_patterns: z.array(z.string().min(1)).default(() => []),
  /** MassGen: how to verify the criterion; shown to the scorers with the text. */
  verify_by: z.string().min(1).optional(),
});
export type InlineCriterion = z.output<typeof InlineCriterionSchema>;

const LEGACY_TIERS = { must: 'primary', should: 'standard', could: 'stretch' } as const;

/** The tier an inline criterion asks for (default `standard`). */
export function inlineTier(criterion: InlineCriterion): 'primary' | 'standard' | 'stretch' {
  const category = criterion.category;
  if (criterion.tier) return criterion.tier;
  if (category === undefined) return 'standard';
  return category in LEGACY_TIERS
    ? LEGACY_TIERS[category as keyof typeof LEGACY_TIERS]
    : (category as 'primary');
}

/** Keys of `orchestrator.coordination` for the checklist gate. */
export const checklistCoordinationKeys = {
  /** The criteria the checklist scores against (first choice over `--eval-criteria` and the preset). */
  checklist_criteria_inline: z.array(InlineCriterionSchema).min(1).max(12).optional(),
  /** A built-in set of criteria: `evaluation`, `planning`, `analysis`, `code`, `writing`. */
  checklist_criteria_preset: z.enum(CRITERIA_PRESETS).optional(),
  /** The score (0–10) a primary criterion needs; standard ones need one less (default 7). */
  checklist_threshold: z.int().min(1).max(10).optional(),
};

/** Keys of `orchestrator` for the final answer and decomposition. */
export const qualityOrchestratorKeys = {
  /** `winner_present`, `winner_reuse` (no extra call) or `synthesize` (merge the top answers). */
  final_answer_strategy: z.enum(['winner_present', 'winner_reuse', 'synthesize']).optional(),
  /** `voting` (default) or `decomposition`: owned subtasks, per-subtask votes, one presenter. */
  coordination_mode: z.enum(['voting', 'decomposition']).optional(),
  /** Decomposition: the agent that assembles the parts (default: the agent that planned them). */
  presenter_agent: z.string().min(1).optional(),
};
