import type { CriterionTier } from '../../types/quality-events.js';

/**
 * The checklist gate (`voting_sensitivity: checklist_gated`), pure: scores in, verdict out. Everything
 * here is deterministic — no clock, no randomness — so a run's verdicts follow from its scores alone.
 * docs/protocol.md ("The checklist gate") states the same rules in prose.
 */

/** Weight of a criterion in a candidate's aggregate, by tier. */
export const TIER_WEIGHT: Record<CriterionTier, number> = { primary: 3, standard: 2, stretch: 1 };

/** A criterion discriminates when the scores one scorer gives the answers differ by at least this. */
export const MIN_SPREAD = 2;
/** Checklists (each scoring two or more answers) needed before a criterion can be demoted. */
export const MIN_SAMPLES = 2;

export interface GateCriterion {
  id: string;
  tier: CriterionTier;
}

/** One answer as one scorer scored it. */
export interface ScoredCandidate {
  /** The author's position in the config (the last tie-break). */
  agentIndex: number;
  /** When the answer was accepted over the run (earlier wins a tie). */
  order: number;
  /** Criterion id → score 0–10. */
  scores: Readonly<Record<string, number>>;
}

export interface GateInput {
  criteria: readonly GateCriterion[];
  /** The scorer's scores, one entry per answer it saw (at least one). */
  candidates: readonly ScoredCandidate[];
  /** What a primary criterion needs (a standard one needs one less; stretch never blocks). */
  threshold: number;
  /** Criteria demoted for not discriminating (see {@link demotedCriteria}). */
  demoted: ReadonlySet<string>;
  /** False when the scorer may not answer again (answer limit): the verdict is then converge. */
  mayIterate: boolean;
}

export interface GateResult {
  verdict: 'iterate' | 'converge';
  basis: 'scores' | 'answer_limit';
  /** The best answer's author (agent index). */
  best: number;
  /** Aggregate per author index, rounded to two decimals. */
  aggregates: Map<number, number>;
  /** Criteria the best answer fails, in criteria order. */
  failing: string[];
}

/** A demoted criterion counts one tier lower: primary → standard → stretch. */
export function effectiveTier(tier: CriterionTier, demoted: boolean): CriterionTier {
  if (!demoted) return tier;
  return tier === 'primary' ? 'standard' : 'stretch';
}

/** The tier's weight, halved for a demoted criterion. */
export function criterionWeight(tier: CriterionTier, demoted: boolean): number {
  return TIER_WEIGHT[tier] / (demoted ? 2 : 1);
}

/** The score a criterion needs to pass, or null when it never blocks (stretch). */
export function passMark(tier: CriterionTier, demoted: boolean, threshold: number): number | null {
  const effective = effectiveTier(tier, demoted);
  return effective === 'primary' ? threshold : effective === 'standard' ? threshold - 1 : null;
}

const round2 = (value: number): number => Math.round(value * 100) / 100;

/** The weighted mean of one candidate's scores (0–10). */
export function aggregateScore(
  criteria: readonly GateCriterion[],
  scores: Readonly<Record<string, number>>,
  demoted: ReadonlySet<string>,
): number {
  let total = 0;
  let weights = 0;
  for (const criterion of criteria) {
    const weight = criterionWeight(criterion.tier, demoted.has(criterion.id));
    total += weight * (scores[criterion.id] ?? 0);
    weights += weight;
  }
  return weights === 0 ? 0 : round2(total / weights);
}

/** The criteria a candidate fails, in criteria order. */
export function failingCriteria(
  criteria: readonly GateCriterion[],
  scores: Readonly<Record<string, number>>,
  demoted: ReadonlySet<string>,
  threshold: number,
): string[] {
  return criteria.flatMap((criterion) => {
    const mark = passMark(criterion.tier, demoted.has(criterion.id), threshold);
    return mark !== null && (scores[criterion.id] ?? 0) < mark ? [criterion.id] : [];
  });
}

/**
 * Turns one scorer's scores into a verdict. The best candidate has the highest aggregate; ties go to
 * fewer failing criteria, then the earlier answer, then the author earlier in the config. Converge when
 * the best passes every criterion that has a pass mark (or the scorer may not answer again); otherwise
 * iterate.
 */
export function evaluateGate(input: GateInput): GateResult {
  const { criteria, demoted, threshold } = input;
  if (input.candidates.length === 0) throw new Error('the gate needs at least one scored answer');
  const ranked = input.candidates
    .map((candidate) => ({
      candidate,
      aggregate: aggregateScore(criteria, candidate.scores, demoted),
      failing: failingCriteria(criteria, candidate.scores, demoted, threshold),
    }))
    .sort(
      (a, b) =>
        b.aggregate - a.aggregate ||
        a.failing.length - b.failing.length ||
        a.candidate.order - b.candidate.order ||
        a.candidate.agentIndex - b.candidate.agentIndex,
    );
  const top = ranked[0] as (typeof ranked)[number];
  const aggregates = new Map(ranked.map((r) => [r.candidate.agentIndex, r.aggregate]));
  const basis = input.mayIterate ? 'scores' : 'answer_limit';
  const verdict = input.mayIterate && top.failing.length > 0 ? 'iterate' : 'converge';
  return { verdict, basis, best: top.candidate.agentIndex, aggregates, failing: top.failing };
}

/**
 * Criteria that do not discriminate between answers: over the checklists of the attempt that scored two
 * or more answers (at least {@link MIN_SAMPLES} of them), the mean spread (highest minus lowest score a
 * scorer gave) stays below {@link MIN_SPREAD}. Each checklist is the list of its candidates' scores.
 */
export function demotedCriteria(
  criteria: readonly GateCriterion[],
  checklists: readonly (readonly Readonly<Record<string, number>>[])[],
): Set<string> {
  const comparing = checklists.filter((scores) => scores.length >= 2);
  const demoted = new Set<string>();
  if (comparing.length < MIN_SAMPLES) return demoted;
  for (const criterion of criteria) {
    const spreads = comparing.map((scores) => {
      const values = scores.map((s) => s[criterion.id] ?? 0);
      return Math.max(...values) - Math.min(...values);
    });
    const mean = spreads.reduce((sum, s) => sum + s, 0) / spreads.length;
    if (mean < MIN_SPREAD) demoted.add(criterion.id);
  }
  return demoted;
}

/**
 * The order a scorer reads the candidates in (position bias): the authors in config order, rotated by
 * the scorer's position plus its round, with the scorer's own answer moved from first to last.
 */
export function candidateOrder(authors: readonly number[], scorer: number, round: number): number[] {
  const sorted = [...authors].sort((a, b) => a - b);
  if (sorted.length < 2) return sorted;
  const shift = (scorer + round - 1) % sorted.length;
  const rotated = [...sorted.slice(shift), ...sorted.slice(0, shift)];
  return rotated[0] === scorer ? [...rotated.slice(1), scorer] : rotated;
}
