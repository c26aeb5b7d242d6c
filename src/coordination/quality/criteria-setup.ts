import { EvalCriteriaSchema, type EvalCriteria } from '../../types/criteria-schema.js';
import type { ToolDefinition } from '../../types/messages.js';
import type { CriteriaSource } from '../../types/quality-events.js';
import { oneOffCall } from '../one-off-call.js';
import type { RunContext } from '../run-context.js';
import { asObject } from '../workflow-tools.js';
import { PRESET_CRITERIA, toCriteria, type CriteriaPreset, type CriterionInput } from './criteria.js';
import { QualityBook } from './quality-book.js';
import { criteriaGenerationPrompt, DEFINE_CRITERIA } from './quality-prompts.js';

/** Used when the question's own criteria could not be generated. */
const FALLBACK_PRESET: CriteriaPreset = 'evaluation';

const defineCriteriaTool: ToolDefinition = {
  name: DEFINE_CRITERIA,
  description: 'Give the evaluation criteria for this task.',
  parameters: {
    type: 'object',
    properties: {
      aspiration: { type: 'string', description: 'What an excellent answer achieves overall.' },
      criteria: {
        type: 'array',
        minItems: 4,
        maxItems: 7,
        items: {
          type: 'object',
          properties: {
            text: { type: 'string' },
            tier: { type: 'string', enum: ['primary', 'standard', 'stretch'] },
            anti_patterns: { type: 'array', items: { type: 'string' } },
          },
          required: ['text', 'tier', 'anti_patterns'],
          additionalProperties: false,
        },
      },
    },
    required: ['aspiration', 'criteria'],
    additionalProperties: false,
  },
};

/** One agent writes criteria for the question; null when the call fails or its list is not valid. */
async function generateCriteria(
  ctx: RunContext,
  agentIndex: number,
  signal: AbortSignal,
): Promise<EvalCriteria | null> {
  const { system, user } = criteriaGenerationPrompt(ctx.question);
  try {
    const { call } = await oneOffCall(
      ctx,
      agentIndex,
      {
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        tools: [defineCriteriaTool],
      },
      signal,
    );
    const parsed = EvalCriteriaSchema.safeParse(asObject(call?.arguments));
    return parsed.success ? parsed.data : null;
  } catch {
    if (signal.aborted) throw signal.reason;
    return null;
  }
}

/**
 * The criteria of a checklist-gated run, from the first source that has them: the config's
 * `checklist_criteria_inline`, an `--eval-criteria` file, `checklist_criteria_preset`, or generated from
 * the question by the first agent (the `evaluation` preset if that fails). Emits `checklist.criteria`.
 */
export async function setUpChecklist(ctx: RunContext, signal: AbortSignal): Promise<QualityBook> {
  const { checklist } = ctx.settings;
  let source: CriteriaSource;
  let preset: CriteriaPreset | null = null;
  let aspiration: string | null = null;
  let inputs: readonly CriterionInput[];
  let generatedBy: string | null = null;
  if (checklist.criteria !== null) {
    ({ source, aspiration } = checklist.criteria);
    inputs = checklist.criteria.criteria;
  } else if (checklist.preset !== null) {
    source = 'preset';
    preset = checklist.preset;
    ({ aspiration, criteria: inputs } = PRESET_CRITERIA[preset]);
  } else {
    const writer = ctx.state.active()[0] ?? ctx.state.agent(0);
    const generated = await generateCriteria(ctx, writer.index, signal);
    if (generated) {
      source = 'generated';
      generatedBy = writer.spec.id;
      aspiration = ctx.scrub(generated.aspiration);
      inputs = generated.criteria.map((c) => ({
        text: ctx.scrub(c.text),
        tier: c.tier,
        antiPatterns: c.anti_patterns.map((a) => ctx.scrub(a)),
      }));
    } else {
      source = 'fallback';
      preset = FALLBACK_PRESET;
      ({ aspiration, criteria: inputs } = PRESET_CRITERIA[FALLBACK_PRESET]);
    }
  }
  const criteria = toCriteria(inputs);
  ctx.emit({
    type: 'checklist.criteria',
    source,
    preset,
    aspiration,
    criteria,
    generatedBy,
    threshold: checklist.threshold,
  });
  return new QualityBook(criteria, checklist.threshold, aspiration);
}
