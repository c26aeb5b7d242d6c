import { z } from 'zod';
import { CriterionTierSchema } from './quality-events.js';

/**
 * Evaluation criteria as people and models write them (snake_case, like the config): an
 * `--eval-criteria FILE` and the criteria an agent generates from the question share this shape.
 */

/** The built-in criteria sets (`checklist_criteria_preset`); their texts are in coordination/quality/criteria.ts. */
export const CRITERIA_PRESETS = ['evaluation', 'planning', 'analysis', 'code', 'writing'] as const;
export type CriteriaPreset = (typeof CRITERIA_PRESETS)[number];

export const WrittenCriterionSchema = z.strictObject({
  text: z.string().trim().min(1),
  /** `primary` must pass, `standard` should, `stretch` never blocks. */
  tier: CriterionTierSchema,
  /** What a weak answer does on this criterion. */
  anti_patterns: z.array(z.string().trim().min(1)).default(() => []),
});

export const EvalCriteriaSchema = z.strictObject({
  /** What an excellent answer achieves overall. */
  aspiration: z.string().trim().min(1),
  criteria: z
    .array(WrittenCriterionSchema)
    .min(4, { error: 'give 4 to 7 criteria' })
    .max(7, { error: 'give 4 to 7 criteria' }),
});

export type EvalCriteria = z.output<typeof EvalCriteriaSchema>;
