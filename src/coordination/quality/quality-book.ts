import type { Criterion } from '../../types/quality-events.js';
import type { CriterionScore } from './checklist-tool.js';
import { demotedCriteria, evaluateGate, type GateResult } from './gate.js';

/** One accepted checklist: who scored which answers (author index → label and scores). */
export interface ChecklistRecord {
  scorer: number;
  round: number;
  scores: Map<number, { label: string; scores: Record<string, CriterionScore> }>;
  result: GateResult;
}

/**
 * The run's memory of the checklist loop for one attempt: the criteria, each agent's round, every
 * checklist (the demotion rule reads them all), the feedback each author's latest answer got, and the
 * last verdict of each scorer. Mutated only from turn handlers, one at a time on the event loop.
 */
export class QualityBook {
  private readonly records: ChecklistRecord[] = [];
  private readonly rounds = new Map<number, number>();

  constructor(
    readonly criteria: readonly Criterion[],
    readonly threshold: number,
    /** What an excellent answer achieves, when the criteria came with one. */
    readonly aspiration: string | null = null,
  ) {}

  /** The round the agent's next checklist belongs to (1 for its first). */
  nextRound(agentIndex: number): number {
    return (this.rounds.get(agentIndex) ?? 0) + 1;
  }

  /**
   * Records a checklist and returns the gate's verdict on it. Demotion looks at every checklist of the
   * attempt, this one included.
   */
  record(
    scorer: number,
    scores: ChecklistRecord['scores'],
    orderOf: (author: number) => number,
    mayIterate: boolean,
  ): { record: ChecklistRecord; demoted: Set<string> } {
    const round = this.nextRound(scorer);
    this.rounds.set(scorer, round);
    const plain = (s: ChecklistRecord['scores']) =>
      [...s.values()].map((v) => Object.fromEntries(Object.entries(v.scores).map(([k, x]) => [k, x.score])));
    const demoted = demotedCriteria(this.criteria, [
      ...this.records.map((r) => plain(r.scores)),
      plain(scores),
    ]);
    const result = evaluateGate({
      criteria: this.criteria,
      candidates: [...scores].map(([agentIndex, v]) => ({
        agentIndex,
        order: orderOf(agentIndex),
        scores: Object.fromEntries(Object.entries(v.scores).map(([k, x]) => [k, x.score])),
      })),
      threshold: this.threshold,
      demoted,
      mayIterate,
    });
    const record: ChecklistRecord = { scorer, round, scores, result };
    this.records.push(record);
    return { record, demoted };
  }

  /** The scorer's latest checklist, if any. */
  lastOf(scorer: number): ChecklistRecord | undefined {
    return this.records.findLast((r) => r.scorer === scorer);
  }

  /**
   * What the other scorers said about `author`'s answers, each in its latest checklist that scored one
   * of them (in scorer order): the label it scored and its scores.
   */
  feedbackOn(author: number): { scorer: number; label: string; scores: Record<string, CriterionScore> }[] {
    const latest = new Map<number, { label: string; scores: Record<string, CriterionScore> }>();
    for (const record of this.records) {
      const entry = record.scores.get(author);
      if (entry && record.scorer !== author) latest.set(record.scorer, entry);
    }
    return [...latest].sort(([a], [b]) => a - b).map(([scorer, entry]) => ({ scorer, ...entry }));
  }

  /** The mean aggregate an answer got over every checklist that scored it, or null if none did. */
  meanAggregate(author: number, label: string): number | null {
    const values = this.records.flatMap((r) =>
      r.scores.get(author)?.label === label ? [r.result.aggregates.get(author) ?? 0] : [],
    );
    return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
  }

  /** Mean score per criterion for one answer, over every checklist that scored it. */
  meanScores(author: number, label: string): Record<string, number> {
    const sums = new Map<string, { sum: number; n: number }>();
    for (const r of this.records) {
      const entry = r.scores.get(author);
      if (entry?.label !== label) continue;
      for (const [id, s] of Object.entries(entry.scores)) {
        const acc = sums.get(id) ?? { sum: 0, n: 0 };
        sums.set(id, { sum: acc.sum + s.score, n: acc.n + 1 });
      }
    }
    return Object.fromEntries([...sums].map(([id, { sum, n }]) => [id, Math.round((sum / n) * 10) / 10]));
  }

  /** A new attempt (`max_orchestration_restarts`) scores afresh. */
  reset(): void {
    this.records.length = 0;
    this.rounds.clear();
  }
}
