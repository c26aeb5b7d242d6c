import type { GradedAnswer, QuestionRecord } from './score-questions.js';
import { mcnemarExact, wilsonInterval } from './stats.js';

/** Which baselines an eval reports (each from the team's own logs, at no extra cost). */
export const BASELINE_NAMES = ['single', 'majority'] as const;
export type BaselineName = (typeof BASELINE_NAMES)[number];

/** One system's line of the report. */
export interface SystemSummary {
  /** `team`, `single:<agent>`, `majority`, `single-call:<agent>`, `best-of-n:<agent>`, `oracle`. */
  name: string;
  kind: 'team' | 'single' | 'majority' | 'single-call' | 'best-of-n' | 'oracle';
  correct: number;
  n: number;
  accuracy: number;
  /** Wilson 95% interval of the accuracy. */
  ci95: { low: number; high: number };
  /** Means per question (null for the oracle, which is not a system one can run). */
  tokensPerQuestion: number | null;
  costUsdPerQuestion: number | null;
  latencyMsPerQuestion: number | null;
  /**
   * McNemar's exact test against the team over the same questions: `teamOnly` right only for the
   * team, `baselineOnly` right only for this system. Null for the team itself.
   */
  vsTeam: { teamOnly: number; baselineOnly: number; pValue: number } | null;
  /**
   * McNemar's exact test against the best member (`single:<bestMember>`, its first answers) over the
   * same questions: `systemOnly` right only for this system, `memberOnly` only for the member. Null for
   * the best member itself, or when there is none.
   */
  vsBestMember: { systemOnly: number; memberOnly: number; pValue: number } | null;
}

/** A question the team got wrong and its best member (on its first answer) got right. */
export interface LostQuestion {
  id: string;
  reference: string;
  teamAnswer: string | null;
  memberAnswer: string | null;
}

/** The numbers of an eval (the body of `eval-report.json`). */
export interface EvalSummary {
  questions: number;
  /** Runs that ended without an answer (counted wrong for the team). */
  failedRuns: number;
  /** Questions whose log folder could not be read (no single-agent answers: counted wrong for them). */
  withoutLogs: number;
  systems: SystemSummary[];
  /** The agent with the most first answers right (ties: config order); null without agents. */
  bestMember: string | null;
  lostToBestMember: LostQuestion[];
  rounds: { mean: number; max: number };
  votes: { mean: number; total: number };
}

const mean = (values: readonly number[]) =>
  values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;

/** A system's summary from its per-question answers (null: no answer, counted wrong). */
function summarize(
  name: string,
  kind: SystemSummary['kind'],
  right: readonly boolean[],
  answers: readonly (GradedAnswer | null)[] | null,
  team: readonly boolean[] | null,
): SystemSummary {
  const n = right.length;
  const correct = right.filter(Boolean).length;
  const given = answers?.filter((a): a is GradedAnswer => a !== null) ?? null;
  let vsTeam: SystemSummary['vsTeam'] = null;
  if (team) {
    const teamOnly = right.filter((r, i) => team[i] && !r).length;
    const baselineOnly = right.filter((r, i) => !team[i] && r).length;
    vsTeam = { teamOnly, baselineOnly, pValue: mcnemarExact(teamOnly, baselineOnly) };
  }
  return {
    name,
    kind,
    correct,
    n,
    accuracy: n === 0 ? 0 : correct / n,
    ci95: wilsonInterval(correct, n),
    // Costs are averaged over every question: one without an answer cost what it cost (often 0).
    tokensPerQuestion: given ? mean(answers!.map((a) => a?.tokens ?? 0)) : null,
    costUsdPerQuestion: given ? mean(answers!.map((a) => a?.costUsd ?? 0)) : null,
    latencyMsPerQuestion: given ? mean(given.map((a) => a.latencyMs)) : null,
    vsTeam,
    vsBestMember: null,
  };
}

/** The paired test of each system against the best member's first answers (`right` by system name). */
function pairWithBestMember(
  systems: SystemSummary[],
  right: ReadonlyMap<string, readonly boolean[]>,
  bestMember: string | null,
): void {
  const member = bestMember === null ? undefined : right.get(`single:${bestMember}`);
  if (!member) return;
  for (const system of systems) {
    const mine = right.get(system.name);
    if (system.name === `single:${bestMember}` || !mine) continue;
    const systemOnly = mine.filter((r, i) => r && !member[i]).length;
    const memberOnly = mine.filter((r, i) => !r && member[i]).length;
    system.vsBestMember = { systemOnly, memberOnly, pValue: mcnemarExact(systemOnly, memberOnly) };
  }
}

/**
 * The report's numbers: accuracy with its Wilson 95% interval for the team, each agent's first answer,
 * the majority vote over those and the oracle (some agent right); McNemar's exact test of the team
 * against each; and the questions the team lost to its best member.
 */
export function summarizeEval(
  records: readonly QuestionRecord[],
  agentIds: readonly string[],
  baselines: readonly BaselineName[] = BASELINE_NAMES,
  /** The separate-call baselines (`single-call:<agent>`, `best-of-n:<agent>`), read from `r.baselines`. */
  separate: readonly { name: string; kind: 'single-call' | 'best-of-n' }[] = [],
): EvalSummary {
  // Every system's right/wrong per question, for the paired tests against the best member.
  const right = new Map<string, readonly boolean[]>();
  const track: typeof summarize = (name, kind, answersRight, answers, team) => {
    right.set(name, answersRight);
    return summarize(name, kind, answersRight, answers, team);
  };
  const team = records.map((r) => r.team.correct);
  const systems: SystemSummary[] = [
    track(
      'team',
      'team',
      team,
      records.map((r) => r.team),
      null,
    ),
  ];
  const singles = agentIds.map((id) =>
    track(
      `single:${id}`,
      'single',
      records.map((r) => r.agents[id]?.correct ?? false),
      records.map((r) => r.agents[id] ?? null),
      team,
    ),
  );
  if (baselines.includes('single')) systems.push(...singles);
  if (baselines.includes('majority'))
    systems.push(
      track(
        'majority',
        'majority',
        records.map((r) => r.majority?.correct ?? false),
        records.map((r) => r.majority),
        team,
      ),
    );
  for (const { name, kind } of separate)
    systems.push(
      track(
        name,
        kind,
        records.map((r) => r.baselines?.[name]?.correct ?? false),
        records.map((r) => r.baselines?.[name] ?? null),
        team,
      ),
    );
  systems.push(
    track(
      'oracle',
      'oracle',
      records.map((r) => r.oracle),
      null,
      team,
    ),
  );
  let best: { id: string; correct: number } | null = null;
  for (const [i, id] of agentIds.entries()) {
    const correct = (singles[i] as SystemSummary).correct;
    if (!best || correct > best.correct) best = { id, correct };
  }
  const bestMember = best?.id ?? null;
  pairWithBestMember(systems, right, bestMember);
  const lostToBestMember = bestMember
    ? records
        .filter((r) => !r.team.correct && r.agents[bestMember]?.correct === true)
        .map((r) => ({
          id: r.id,
          reference: r.reference,
          teamAnswer: r.team.answer,
          memberAnswer: r.agents[bestMember]?.answer ?? null,
        }))
    : [];
  return {
    questions: records.length,
    failedRuns: records.filter((r) => r.team.answer === null).length,
    withoutLogs: records.filter((r) => !r.logs).length,
    systems,
    bestMember,
    lostToBestMember,
    rounds: { mean: mean(records.map((r) => r.rounds)), max: Math.max(0, ...records.map((r) => r.rounds)) },
    votes: { mean: mean(records.map((r) => r.votes)), total: records.reduce((s, r) => s + r.votes, 0) },
  };
}
