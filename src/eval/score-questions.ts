import type { BatchResultLine } from '../batch/result-line.js';
import type { EvalItem } from './dataset.js';
import type { RunFacts } from './run-facts.js';
import type { Scorer } from './scorers.js';

/** One system's answer to one question, graded. */
export interface GradedAnswer {
  answer: string | null;
  correct: boolean;
  /** What the scorer read from it (a number, a letter, normalized text). */
  extracted: string | null;
  tokens: number;
  costUsd: number;
  latencyMs: number;
  /** The judge's reasoning (scorer `judge`). */
  reason?: string;
}

/** A separate-call baseline's answer to one question, graded. */
export interface SeparateAnswer extends GradedAnswer {
  /** The `max_tokens` each call was given (null: the agent's own, when the team spent nothing). */
  maxTokens: number | null;
  /** best-of-n: the samples taken (1 for single-call) and which one (1-based) was picked. */
  samples: number;
  picked: number | null;
}

/** Everything the report needs about one question. */
export interface QuestionRecord {
  id: string;
  prompt: string;
  reference: string;
  status: BatchResultLine['status'];
  error: string | null;
  winner: string | null;
  team: GradedAnswer;
  /** Each agent's first answer (the single-agent baselines), by agent id; null: it gave none. */
  agents: Record<string, GradedAnswer | null>;
  /** The plurality of the first answers, and whose answer stood for it. */
  majority: (GradedAnswer & { agentId: string | null; key: string | null }) | null;
  /** Some agent's first answer was right (the ceiling of picking among them). */
  oracle: boolean;
  rounds: number;
  votes: number;
  /** False when the run's log folder could not be read (no single-agent answers then). */
  logs: boolean;
  /** The separate-call baselines' answers, by system name (`best-of-n:alpha`); null: not run. */
  baselines?: Record<string, SeparateAnswer | null>;
}

/**
 * The plurality over the agents' first answers, compared as the scorer compares them (`key`). Ties go
 * to the answer given first in config order: of the tied answers, the one whose earliest holder comes
 * first among the agents. Agents whose answer says nothing (no number, no letter) do not vote. Null
 * when no agent said anything.
 */
export function majorityOf(
  agents: readonly string[],
  keyOf: (agentId: string) => string | null,
): { key: string; agentId: string } | null {
  const counts = new Map<string, { count: number; first: string }>();
  for (const agentId of agents) {
    const key = keyOf(agentId);
    if (key === null) continue;
    const entry = counts.get(key);
    if (entry) entry.count++;
    else counts.set(key, { count: 1, first: agentId });
  }
  let best: { key: string; agentId: string; count: number } | null = null;
  // Map order is first-appearance order in `agents`: a later key wins only with strictly more votes.
  for (const [key, { count, first }] of counts)
    if (!best || count > best.count) best = { key, agentId: first, count };
  return best ? { key: best.key, agentId: best.agentId } : null;
}

/** Grades the team's answer and every agent's first answer of one question. */
export async function scoreQuestion(
  item: EvalItem,
  line: BatchResultLine,
  facts: RunFacts | null,
  scorer: Scorer,
  agentIds: readonly string[],
): Promise<QuestionRecord> {
  const teamVerdict = await scorer.score(line.answer, item);
  const team: GradedAnswer = {
    answer: line.answer,
    correct: teamVerdict.correct,
    extracted: teamVerdict.extracted,
    tokens: line.tokens.total,
    costUsd: line.cost_usd,
    latencyMs: line.duration_ms,
    ...(teamVerdict.reason === undefined ? {} : { reason: teamVerdict.reason }),
  };
  const agents: Record<string, GradedAnswer | null> = {};
  for (const agentId of agentIds) {
    const first = facts?.firstAnswers.get(agentId);
    if (!first) {
      agents[agentId] = null;
      continue;
    }
    const verdict = await scorer.score(first.content, item);
    agents[agentId] = {
      answer: first.content,
      correct: verdict.correct,
      extracted: verdict.extracted,
      tokens: first.tokens,
      costUsd: first.costUsd,
      latencyMs: first.latencyMs,
      ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
    };
  }
  const answered = agentIds.filter((id) => agents[id] !== null);
  const pick = majorityOf(answered, (id) => scorer.key(agents[id]?.answer ?? null, item));
  const chosen = pick ? (agents[pick.agentId] as GradedAnswer) : null;
  const all = answered.map((id) => agents[id] as GradedAnswer);
  const majority =
    answered.length === 0
      ? null
      : {
          answer: chosen?.answer ?? null,
          correct: chosen?.correct ?? false,
          extracted: chosen?.extracted ?? null,
          agentId: pick?.agentId ?? null,
          key: pick?.key ?? null,
          // Every agent's first answer was needed to take the vote.
          tokens: all.reduce((sum, a) => sum + a.tokens, 0),
          costUsd: all.reduce((sum, a) => sum + a.costUsd, 0),
          latencyMs: Math.max(...all.map((a) => a.latencyMs)),
        };
  return {
    id: item.id,
    prompt: item.prompt,
    reference: item.answer,
    status: line.status,
    error: line.error ? `${line.error.code}: ${line.error.message}` : null,
    winner: line.winner,
    team,
    agents,
    majority,
    oracle: all.some((a) => a.correct),
    rounds: facts?.rounds ?? 0,
    votes: facts?.votes ?? 0,
    logs: facts !== null,
  };
}
