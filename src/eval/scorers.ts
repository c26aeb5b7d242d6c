import type { EvalItem } from './dataset.js';

/** How an answer is graded against the reference (docs/eval.md, Scorers). */
export const SCORER_NAMES = ['exact', 'numeric', 'choice', 'contains', 'regex', 'judge'] as const;
export type ScorerName = (typeof SCORER_NAMES)[number];

/** A grade: right or not, and what was read from the answer (shown in the report). */
export interface Verdict {
  correct: boolean;
  /** The part of the answer that was compared (a number, a letter, normalized text), or null. */
  extracted: string | null;
  /** Why, when a judge graded it. */
  reason?: string;
}

/** Grades answers; `key` groups answers that say the same thing (for the majority vote). */
export interface Scorer {
  /** A scorer of `--scorer`, or a benchmark's own (`gsm8k`, `mmlu-pro`…). */
  readonly name: string;
  /** What an answer says, normalized the way this scorer compares it; null when it says nothing. */
  key(answer: string | null, item: EvalItem): string | null;
  score(answer: string | null, item: EvalItem): Promise<Verdict>;
}

/** Lower case, accents and punctuation at the ends removed, inner whitespace collapsed. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["'`*([{\s]+|["'`*)\]}.!?,;:\s]+$/g, '');
}

const NUMBER = /-?\$?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?|-?\$?\.\d+/g;

/** A number as written (`1,234.5`, `$42`, `-3e2`), or NaN. */
export function parseNumber(text: string): number {
  return Number(text.replace(/[$,\s]/g, ''));
}

/**
 * The number an answer gives: after `####` (GSM8K style) or "answer is" when it says so, else the
 * last number in it. Null when there is none.
 */
export function extractNumber(answer: string): number | null {
  const marked =
    /####\s*(-?\$?[\d,.]+)/.exec(answer)?.[1] ??
    /answer\s*(?:is|:)\s*\**\s*(-?\$?[\d,.]*\d)/i.exec(answer)?.[1];
  const candidates = marked ? [marked] : (answer.match(NUMBER) ?? []);
  const last = candidates.at(-1);
  if (last === undefined) return null;
  const value = parseNumber(last.replace(/\.$/, ''));
  return Number.isFinite(value) ? value : null;
}

/** Whether two numbers agree within `tolerance` (relative to the reference, and at least absolute). */
export function numbersMatch(value: number, reference: number, tolerance: number): boolean {
  return Math.abs(value - reference) <= Math.max(tolerance * Math.abs(reference), tolerance);
}

/**
 * The letter a multiple-choice answer picks, of `count` options: "answer is C", "Answer: C", then
 * "(c)", "**C**" or a line that is just "C" (any case) — the last mention of the first kind found; else
 * the one capital option letter standing alone in the text. Null when it names none (or several,
 * without saying which is the answer).
 */
export function extractChoice(answer: string, count: number): string | null {
  const last = letterOf(count - 1);
  const range = `A-${last}`;
  const patterns = [
    // The letter after "answer" in capitals only: "the answer is a …" names no option.
    new RegExp(`[Aa][Nn][Ss][Ww][Ee][Rr]\\s*(?:is|IS|:)?\\s*(?:option\\s*)?[*(\\[]*([${range}])\\b`, 'g'),
    new RegExp(`^\\s*[*(\\[]*([${range}])[)\\].:*]*\\s*$`, 'gim'),
    new RegExp(`\\(([${range}])\\)`, 'gi'),
    new RegExp(`\\*\\*([${range}])\\*\\*`, 'gi'),
  ];
  for (const pattern of patterns) {
    const found = [...answer.matchAll(pattern)].map((m) => (m[1] as string).toUpperCase());
    const pick = found.at(-1);
    if (pick !== undefined) return pick;
  }
  const alone = new Set([...answer.matchAll(new RegExp(`\\b([${range}])\\b`, 'g'))].map((m) => m[1]));
  return alone.size === 1 ? ([...alone][0] as string) : null;
}
const letterOf = (index: number): string => String.fromCharCode(65 + index);

const sync =
  (grade: (answer: string, item: EvalItem) => Verdict) =>
  async (answer: string | null, item: EvalItem): Promise<Verdict> =>
    answer === null ? { correct: false, extracted: null } : grade(answer, item);

/** Options of the scorers that take any. */
export interface ScorerOptions {
  /** `numeric`: relative tolerance (absolute below 1). Default 1e-6. */
  tolerance?: number;
}

/** A scorer that needs no model (every one but `judge`). */
export function localScorer(name: Exclude<ScorerName, 'judge'>, options: ScorerOptions = {}): Scorer {
  const tolerance = options.tolerance ?? 1e-6;
  switch (name) {
    case 'exact':
      return {
        name,
        key: (answer) => (answer === null ? null : normalizeText(answer) || null),
        score: sync((answer, item) => {
          const extracted = normalizeText(answer);
          return { correct: extracted === normalizeText(item.answer), extracted };
        }),
      };
    case 'contains':
      return {
        name,
        key: (answer) => (answer === null ? null : normalizeText(answer) || null),
        score: sync((answer, item) => {
          const reference = normalizeText(item.answer);
          return {
            correct: reference !== '' && normalizeText(answer).includes(reference),
            extracted: reference,
          };
        }),
      };
    case 'numeric':
      return {
        name,
        key: (answer) => {
          const value = answer === null ? null : extractNumber(answer);
          return value === null ? null : String(value);
        },
        score: sync((answer, item) => {
          const value = extractNumber(answer);
          const reference = parseNumber(item.answer);
          return {
            correct: value !== null && numbersMatch(value, reference, tolerance),
            extracted: value === null ? null : String(value),
          };
        }),
      };
    case 'choice':
      return {
        name,
        key: (answer, item) => (answer === null ? null : extractChoice(answer, item.choices?.length ?? 26)),
        score: sync((answer, item) => {
          const extracted = extractChoice(answer, item.choices?.length ?? 26);
          return { correct: extracted === item.answer.toUpperCase(), extracted };
        }),
      };
    case 'regex':
      return {
        name,
        key: (answer) => (answer === null ? null : normalizeText(answer) || null),
        score: sync((answer, item) => {
          const match = new RegExp(item.answer, 'i').exec(answer);
          return { correct: match !== null, extracted: match ? match[0] : null };
        }),
      };
  }
}
