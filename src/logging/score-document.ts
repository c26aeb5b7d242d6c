import type { RunState } from '../types/run-state.js';

/** The shape of `scores.json`: the checklist criteria and the score matrix, per round. */
export interface ScoreDocument {
  source: string | null;
  preset: string | null;
  aspiration: string | null;
  threshold: number | null;
  criteria: { id: string; text: string; tier: string; anti_patterns: string[] }[];
  /** Criteria the latest verdict demoted (they did not tell the answers apart). */
  demoted: string[];
  /** Per round: author agent id → criterion id → mean score (and what was scored). */
  rounds: {
    round: number;
    scorers: string[];
    matrix: Record<string, Record<string, { mean: number; count: number; labels: string[] }>>;
  }[];
  verdicts: {
    agent: string;
    round: number;
    verdict: string;
    best: string;
    best_label: string;
    failing: string[];
  }[];
  plans: { agent: string; round: number; plan: string }[];
  /** `coordination_mode: decomposition`: the subtasks and their owners. */
  subtasks: { id: string; title: string; description: string; owner: string }[];
  presenter: string | null;
}

/** True when the run used the quality loop (checklist criteria or a decomposition plan). */
export function hasQualityData(state: RunState): boolean {
  return state.quality.criteria.length > 0 || state.quality.subtasks.length > 0;
}

/** Projects the run state into `scores.json`. Pure. */
export function buildScoreDocument(state: RunState): ScoreDocument {
  const q = state.quality;
  return {
    source: q.source,
    preset: q.preset,
    aspiration: q.aspiration,
    threshold: q.threshold,
    criteria: q.criteria.map((c) => ({
      id: c.id,
      text: c.text,
      tier: c.tier,
      anti_patterns: c.antiPatterns,
    })),
    demoted: q.demoted,
    rounds: q.rounds.map((r) => ({
      round: r.round,
      scorers: r.scorers,
      matrix: Object.fromEntries(
        Object.entries(r.cells).map(([agent, row]) => [
          agent,
          Object.fromEntries(
            Object.entries(row).map(([id, cell]) => [
              id,
              { mean: cell.mean, count: cell.count, labels: cell.labels },
            ]),
          ),
        ]),
      ),
    })),
    verdicts: q.verdicts.map((v) => ({
      agent: v.agentId,
      round: v.round,
      verdict: v.verdict,
      best: v.bestAgentId,
      best_label: v.bestLabel,
      failing: v.failing,
    })),
    plans: q.plans.map((p) => ({ agent: p.agentId, round: p.round, plan: p.plan })),
    subtasks: q.subtasks.map((s) => ({
      id: s.id,
      title: s.title,
      description: s.description,
      owner: s.ownerId,
    })),
    presenter: q.presenterId,
  };
}
