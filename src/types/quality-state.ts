import type { RunEvent } from './events.js';
import type { CriteriaSource, Criterion, Subtask } from './quality-events.js';

/**
 * The quality loop as every view shows it: the criteria in force and the score matrix — for each
 * checklist round, each answer's author (rows) × each criterion (columns), the mean score its answer
 * got from the scorers of that round. A pure reducer over events, part of `RunState` (run-state.ts), so
 * the terminal view, the web heatmap, `scores.json` in the logs and a replayed run all agree.
 */

/** One cell of the matrix: the scores one author's answer got on one criterion in one round. */
export interface ScoreCell {
  /** Mean of the scores, one decimal. */
  mean: number;
  count: number;
  sum: number;
  /** The answer labels that were scored (an author may have revised within a round). */
  labels: string[];
  /** The scorers' reasons, `scorer: reason`, in event order. */
  reasons: string[];
}

export interface ScoreRound {
  round: number;
  /** Author agent id → criterion id → cell. */
  cells: Record<string, Record<string, ScoreCell>>;
  /** Agent ids that submitted a checklist in this round, in event order. */
  scorers: string[];
}

export interface VerdictRecord {
  agentId: string;
  round: number;
  verdict: 'iterate' | 'converge';
  bestAgentId: string;
  bestLabel: string;
  failing: string[];
}

export interface QualityState {
  criteria: Criterion[];
  source: CriteriaSource | null;
  preset: string | null;
  aspiration: string | null;
  threshold: number | null;
  /** Rounds in ascending order. */
  rounds: ScoreRound[];
  verdicts: VerdictRecord[];
  /** Criteria the latest verdict demoted for not discriminating between answers. */
  demoted: string[];
  plans: { agentId: string; round: number; plan: string }[];
  /** `coordination_mode: decomposition`: the subtasks and the presenter, else empty and null. */
  subtasks: Subtask[];
  presenterId: string | null;
}

export const initialQualityState = (): QualityState => ({
  criteria: [],
  source: null,
  preset: null,
  aspiration: null,
  threshold: null,
  rounds: [],
  verdicts: [],
  demoted: [],
  plans: [],
  subtasks: [],
  presenterId: null,
});

const round1 = (value: number): number => Math.round(value * 10) / 10;

/** Adds one checklist's scores to its round. */
function withChecklist(
  rounds: ScoreRound[],
  event: Extract<RunEvent, { type: 'checklist.submitted' }>,
): ScoreRound[] {
  const existing = rounds.find((r) => r.round === event.round);
  const cells: ScoreRound['cells'] = structuredClone(existing?.cells ?? {});
  for (const score of event.scores) {
    const row = (cells[score.targetAgentId] ??= {});
    const cell = (row[score.criterionId] ??= { mean: 0, count: 0, sum: 0, labels: [], reasons: [] });
    cell.sum += score.score;
    cell.count += 1;
    cell.mean = round1(cell.sum / cell.count);
    if (!cell.labels.includes(score.targetLabel)) cell.labels.push(score.targetLabel);
    if (score.reason.trim() !== '') cell.reasons.push(`${event.agentId}: ${score.reason.trim()}`);
  }
  const next: ScoreRound = {
    round: event.round,
    cells,
    scorers: [...(existing?.scorers ?? []), event.agentId],
  };
  return [...rounds.filter((r) => r.round !== event.round), next].sort((a, b) => a.round - b.round);
}

/** Applies one event. Pure: returns a new state (or the same one when the event does not concern it). */
export function reduceQualityState(state: QualityState, event: RunEvent): QualityState {
  switch (event.type) {
    case 'checklist.criteria':
      return {
        ...state,
        criteria: event.criteria,
        source: event.source,
        preset: event.preset,
        aspiration: event.aspiration,
        threshold: event.threshold,
      };
    case 'checklist.submitted':
      return { ...state, rounds: withChecklist(state.rounds, event) };
    case 'checklist.verdict':
      return {
        ...state,
        demoted: event.demoted,
        verdicts: [
          ...state.verdicts,
          {
            agentId: event.agentId,
            round: event.round,
            verdict: event.verdict,
            bestAgentId: event.bestAgentId,
            bestLabel: event.bestLabel,
            failing: event.failing,
          },
        ],
      };
    case 'checklist.plan':
      return {
        ...state,
        plans: [...state.plans, { agentId: event.agentId, round: event.round, plan: event.plan }],
      };
    case 'decomposition.planned':
      return { ...state, subtasks: event.subtasks, presenterId: event.presenterId };
    case 'orchestration.restarted':
      // A new attempt scores afresh; the criteria stay.
      return { ...state, rounds: [], verdicts: [], demoted: [], plans: [] };
    default:
      return state;
  }
}

/** The cell of one author and criterion in one round, if any scorer scored it. */
export function scoreCell(
  state: QualityState,
  round: number,
  agentId: string,
  criterionId: string,
): ScoreCell | undefined {
  return state.rounds.find((r) => r.round === round)?.cells[agentId]?.[criterionId];
}
