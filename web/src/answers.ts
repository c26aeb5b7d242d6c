import { currentTallies, type AnswerRecord } from '../../src/types/run-state.js';
import type { RunView, VoteEdge } from './run-view.js';

/**
 * Counted votes per agent id: the agents' current votes while coordination runs, the orchestrator's
 * own tally once it has ended (the same numbers, then frozen).
 */
export function voteTallies(view: RunView): Record<string, number> {
  return view.run.coordinationEnd ? view.run.tallies : currentTallies(view.run);
}

/** An agent's answers of this attempt, oldest first (`agent1.1`, `agent1.2`, …). */
export const versionsOf = (view: RunView, agentId: string): AnswerRecord[] =>
  view.run.answers.filter((a) => a.agentId === agentId);

/** One current answer with the votes that count for it. */
export interface CurrentAnswer {
  answer: AnswerRecord;
  versions: number;
  votes: VoteEdge[];
  winner: boolean;
}

/** Each agent's latest answer, in the agents' order, with the counted votes for it and why. */
export function currentAnswers(view: RunView): CurrentAnswer[] {
  const out: CurrentAnswer[] = [];
  for (const agent of view.run.agents) {
    const versions = versionsOf(view, agent.agentId);
    const answer = versions.at(-1);
    if (!answer) continue;
    out.push({
      answer,
      versions: versions.length,
      votes: view.votes.filter((v) => v.targetId === agent.agentId && v.struck === null && v.counted),
      winner: view.run.winnerId === agent.agentId,
    });
  }
  return out;
}

/** "3 votes", "1 vote". */
export const votesText = (n: number): string => `${n} vote${n === 1 ? '' : 's'}`;
