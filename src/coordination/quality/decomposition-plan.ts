import type { Subtask } from '../../types/quality-events.js';

/**
 * `coordination_mode: decomposition`'s plan (subtasks, one owner each, and the presenter) and the
 * per-subtask votes (made in decomposition.ts).
 */
export interface DecompositionPlan {
  subtasks: Subtask[];
  /** Subtask id → owner's agent index. */
  owners: Map<string, number>;
  /** The agent index that assembles the final answer. */
  presenter: number;
  /** The agent index whose model proposed the plan, or null when the config gave the subtasks. */
  planner: number | null;
  /** Each voter's latest ballot: one vote per subtask. Only a voter holding a counted vote has a valid one. */
  ballots: Map<number, { subtaskId: string; reason: string }[]>;
}
