import type { ToolDefinition } from '../../types/messages.js';
import type { Criterion } from '../../types/quality-events.js';
import { asObject } from '../workflow-tools.js';

/** The tool a checklist-gated agent scores the current answers with before it may answer or vote. */
export const SUBMIT_CHECKLIST = 'submit_checklist';

/** One criterion's score for one answer. */
export interface CriterionScore {
  score: number;
  reason: string;
}

export type ParsedChecklist =
  { kind: 'ok'; scores: Map<string, Record<string, CriterionScore>> } | { kind: 'invalid'; reason: string };

/**
 * `submit_checklist`: one evaluation per answer (in the order listed), each with a score and a reason
 * for every criterion. Fixed properties rather than free maps, so providers with strict schemas and
 * grammar-constrained local models can follow it.
 */
export function checklistToolDefinition(
  criteria: readonly Criterion[],
  order: readonly string[],
): ToolDefinition {
  const scoreSchema = {
    type: 'object',
    properties: {
      score: {
        type: 'integer',
        minimum: 0,
        maximum: 10,
        description: '0 = fails completely, 10 = flawless.',
      },
      reason: { type: 'string', description: 'Why: what the answer does or misses on this criterion.' },
    },
    required: ['score', 'reason'],
    additionalProperties: false,
  };
  return {
    name: SUBMIT_CHECKLIST,
    description:
      'Score every current answer against every evaluation criterion (0–10, with a reason) before you answer or vote. The reply is the verdict: iterate (improve with new_answer) or converge (vote).',
    parameters: {
      type: 'object',
      properties: {
        evaluations: {
          type: 'array',
          description: `One entry per answer, in this order: ${order.join(', ')}.`,
          items: {
            type: 'object',
            properties: {
              agent_id: { type: 'string', enum: [...order] },
              scores: {
                type: 'object',
                properties: Object.fromEntries(criteria.map((c) => [c.id, scoreSchema])),
                required: criteria.map((c) => c.id),
                additionalProperties: false,
              },
            },
            required: ['agent_id', 'scores'],
            additionalProperties: false,
          },
        },
      },
      required: ['evaluations'],
      additionalProperties: false,
    },
  };
}

/** A score as a model may send it: an integer, a float or a numeric string; null when not 0–10. */
function scoreValue(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > 10) return null;
  return Math.round(n);
}

/** Checks a `submit_checklist` call: every answer in `order` once, every criterion scored 0–10. */
export function parseChecklist(
  args: unknown,
  criteria: readonly Criterion[],
  order: readonly string[],
): ParsedChecklist {
  const invalid = (reason: string): ParsedChecklist => ({ kind: 'invalid', reason });
  const evaluations = asObject(args)?.['evaluations'];
  if (!Array.isArray(evaluations))
    return invalid(
      `${SUBMIT_CHECKLIST} needs "evaluations": a list with one entry per answer (${order.join(', ')}).`,
    );
  const scores = new Map<string, Record<string, CriterionScore>>();
  for (const entry of evaluations) {
    const item = asObject(entry);
    const id = typeof item?.['agent_id'] === 'string' ? item['agent_id'].trim() : '';
    if (!order.includes(id))
      return invalid(`"${id || '(none)'}" is not one of the answers to score: ${order.join(', ')}.`);
    if (scores.has(id)) return invalid(`${id} is scored twice; score each answer once.`);
    const given = asObject(item?.['scores']) ?? {};
    const row: Record<string, CriterionScore> = {};
    for (const criterion of criteria) {
      const raw = given[criterion.id];
      const value = asObject(raw);
      const score = scoreValue(value ? value['score'] : raw);
      if (score === null) return invalid(`${id}: ${criterion.id} needs a score from 0 to 10 (and a reason).`);
      const reason = value && typeof value['reason'] === 'string' ? value['reason'].trim() : '';
      row[criterion.id] = { score, reason };
    }
    scores.set(id, row);
  }
  const missing = order.filter((id) => !scores.has(id));
  if (missing.length > 0)
    return invalid(
      `Score every answer: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing.`,
    );
  return { kind: 'ok', scores };
}

/** `new_answer` after an iterate verdict: the improvement plan comes first, then the answer. */
export function iterateAnswerToolDefinition(): ToolDefinition {
  return {
    name: 'new_answer',
    description:
      'Submit your improved answer. First state your improvement plan: what you change, criterion by criterion, to fix what your checklist found. Submitting resets all votes.',
    parameters: {
      type: 'object',
      properties: {
        improvement_plan: {
          type: 'string',
          description: 'What you change and why, naming the criteria (E1, E2 …) it fixes.',
        },
        content: { type: 'string', description: 'Your complete improved answer, written for the user.' },
      },
      required: ['improvement_plan', 'content'],
      additionalProperties: false,
    },
  };
}
