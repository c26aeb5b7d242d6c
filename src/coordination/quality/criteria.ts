import type { CriteriaPreset } from '../../types/criteria-schema.js';
import type { Criterion, CriterionTier } from '../../types/quality-events.js';

/**
 * Evaluation criteria for `voting_sensitivity: checklist_gated`: the shapes the settings carry, the
 * built-in presets, and how a list as written becomes the run's criteria (ids `E1` … `En`).
 */

/** A criterion as written in the config, an eval-criteria file or a generated list. */
export interface CriterionInput {
  text: string;
  /** Default `standard`. */
  tier?: CriterionTier;
  antiPatterns?: readonly string[];
}

/** Criteria given explicitly, with where they came from (`checklist_criteria_inline` or `--eval-criteria`). */
export interface CriteriaInput {
  source: 'config' | 'file';
  aspiration: string | null;
  criteria: readonly CriterionInput[];
}

export { CRITERIA_PRESETS, type CriteriaPreset } from '../../types/criteria-schema.js';

/** How the checklist gate is set up. */
export interface ChecklistSettings {
  /** Explicit criteria (config or file); null: the preset, else criteria generated from the question. */
  criteria: CriteriaInput | null;
  preset: CriteriaPreset | null;
  /** Score (0–10) a primary criterion needs to pass; a standard one needs one less. */
  threshold: number;
}

export const defaultChecklistSettings: ChecklistSettings = { criteria: null, preset: null, threshold: 7 };

/** Numbers the criteria `E1` … `En` and fills in the defaults. */
export function toCriteria(inputs: readonly CriterionInput[]): Criterion[] {
  return inputs.map((input, index) => ({
    id: `E${index + 1}`,
    text: input.text.trim(),
    tier: input.tier ?? 'standard',
    antiPatterns: (input.antiPatterns ?? []).map((a) => a.trim()).filter((a) => a !== ''),
  }));
}

const c = (text: string, tier: CriterionTier, ...antiPatterns: string[]): CriterionInput => ({
  text,
  tier,
  antiPatterns,
});

/** The built-in criteria sets, each with the aspiration it serves. */
export const PRESET_CRITERIA: Record<CriteriaPreset, { aspiration: string; criteria: CriterionInput[] }> = {
  evaluation: {
    aspiration: 'An answer the user can rely on and act on without asking again.',
    criteria: [
      c(
        'Answers exactly what was asked: every explicit requirement and constraint of the task is met.',
        'primary',
        'answering a nearby, easier question',
        'silently dropping a constraint',
      ),
      c(
        'Every claim, number, step and piece of code is correct and checkable.',
        'primary',
        'confident statements nobody verified',
        'arithmetic or logic slips',
      ),
      c(
        'Covers the parts that matter in enough depth, including the cases that would trip the user up.',
        'standard',
        'a shallow list of headings',
        'ignoring edge cases the task implies',
      ),
      c(
        'Clear and well organised: the reader finds the answer first, then the support.',
        'standard',
        'burying the answer',
        'padding and repetition',
      ),
      c(
        'Goes beyond the minimum with a genuinely useful insight, example or check.',
        'stretch',
        'generic advice that fits any question',
      ),
    ],
  },
  planning: {
    aspiration: 'A plan a team could start on tomorrow and finish without surprises.',
    criteria: [
      c(
        'The plan reaches the stated goal: every requirement maps to concrete steps.',
        'primary',
        'steps that do not add up to the goal',
      ),
      c(
        'Steps are ordered by their real dependencies, each with a clear outcome.',
        'primary',
        'a flat list with hidden dependencies',
        'vague steps such as "improve things"',
      ),
      c(
        'Risks, unknowns and how to check progress are named, with fallbacks.',
        'standard',
        'only the happy path',
      ),
      c('Effort and scope are realistic for the resources given.', 'standard', 'ignoring stated limits'),
      c('The plan is easy to follow and to hand over.', 'stretch', 'jargon without explanation'),
    ],
  },
  analysis: {
    aspiration: 'A conclusion that holds up when an expert checks the reasoning.',
    criteria: [
      c(
        'The question is answered with a clear conclusion that follows from the evidence.',
        'primary',
        'listing considerations without concluding',
      ),
      c(
        'Facts, figures and sources are accurate, and the reasoning has no gaps.',
        'primary',
        'unsupported claims',
        'correlation taken for causation',
      ),
      c(
        'Alternatives and counter-arguments are weighed fairly.',
        'standard',
        'one-sided framing',
        'straw-man objections',
      ),
      c('Uncertainty and limits of the analysis are stated honestly.', 'standard', 'false precision'),
      c('Insight a careful non-expert would not have reached alone.', 'stretch', 'restating the obvious'),
    ],
  },
  code: {
    aspiration: 'Code a reviewer would merge: correct, tested and easy to change.',
    criteria: [
      c(
        'Does what the task asks, for every stated input and requirement.',
        'primary',
        'solving a simpler problem',
        'hard-coding the example',
      ),
      c(
        'Correct on edge cases and errors; nothing crashes or corrupts data.',
        'primary',
        'unchecked inputs',
        'swallowed errors',
      ),
      c(
        'Shows it works: tests, or a run, that exercise the important paths.',
        'standard',
        'claims of correctness without any check',
      ),
      c(
        'Readable and idiomatic: clear names, small functions, no needless cleverness.',
        'standard',
        'copy-pasted blocks',
        'dead code',
      ),
      c('Efficient enough for the stated scale, with the trade-offs named.', 'stretch', 'needless O(n²)'),
    ],
  },
  writing: {
    aspiration: 'Text the intended reader enjoys and remembers, and that says exactly what it should.',
    criteria: [
      c(
        'Fulfils the brief: topic, audience, length, form and tone as asked.',
        'primary',
        'ignoring the requested form or length',
      ),
      c(
        'Accurate and coherent: no contradictions, no errors of fact.',
        'primary',
        'invented facts',
        'a thread that gets lost',
      ),
      c(
        'Vivid and specific: concrete detail rather than generic phrasing.',
        'standard',
        'clichés',
        'filler sentences',
      ),
      c(
        'Well structured: each part earns its place and flows into the next.',
        'standard',
        'abrupt jumps',
        'a weak ending',
      ),
      c('A distinctive voice or idea that lifts it above the expected.', 'stretch', 'safe, bland choices'),
    ],
  },
};
