import type { CoordinationEndReason } from '../types/events.js';
import { currentTallies, type RunState } from '../types/run-state.js';

/** One vote as recorded in `vote.json`, stale ones included. */
export interface VoteEntry {
  voter: string;
  /** Real id of the agent voted for. */
  target: string;
  target_anonymous_id: string;
  /** The answer label the vote was for, e.g. `agent2.1`. */
  label: string;
  reason: string;
  /** False when the voter's view was stale and it was sent the update instead. */
  counted: boolean;
  /** ISO time the vote was cast. */
  timestamp: string;
}

/** The shape of `vote.json`. */
export interface VoteDocument {
  winner: string | null;
  winner_label: string | null;
  /** Why coordination ended. */
  reason: CoordinationEndReason | null;
  tallies: Record<string, number>;
  votes: VoteEntry[];
}

/** Projects the run state into the `vote.json` document. Pure. */
export function buildVoteDocument(state: RunState): VoteDocument {
  return {
    winner: state.winnerId,
    winner_label: state.winnerLabel,
    reason: state.coordinationEnd,
    // Without coordination.finished (a crash or early cancel) the live tally is the best record.
    tallies: state.coordinationEnd === null ? currentTallies(state) : state.tallies,
    votes: state.votes.map((vote) => ({
      voter: vote.voterId,
      target: vote.targetAgentId,
      target_anonymous_id: vote.targetAnonymousId,
      label: vote.targetLabel,
      reason: vote.reason,
      counted: vote.counted,
      timestamp: new Date(vote.ts).toISOString(),
    })),
  };
}
