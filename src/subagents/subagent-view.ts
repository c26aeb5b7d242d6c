import type { SubagentState } from '../types/subagent-events.js';
import type { SubagentCheckpoint } from './checkpoint.js';

/** A subagent as the tools report it. */
export interface SubagentView {
  id: string;
  state: SubagentState;
  task: string;
  subagent_type: string | null;
  cost_usd: number;
  answer?: string | null;
  error?: string;
  /** Taken over from a previous turn's checkpoint (`--continue`): finished there, or re-started here. */
  restored?: true;
}

/** What the tools show of a checkpoint: the task cut short, the answer only when asked for. */
export function subagentView(
  c: SubagentCheckpoint,
  options: { withAnswer?: boolean; restored?: boolean } = {},
): SubagentView {
  return {
    id: c.id,
    state: c.state,
    task: c.task.length > 200 ? `${c.task.slice(0, 200)}…` : c.task,
    subagent_type: c.subagentType,
    cost_usd: Number(c.costUsd.toFixed(6)),
    ...(options.withAnswer ? { answer: c.answer } : {}),
    ...(c.error ? { error: c.error.message } : {}),
    ...(options.restored ? { restored: true as const } : {}),
  };
}
