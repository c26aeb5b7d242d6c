import { z } from 'zod';

/**
 * Subagents' part of the run event stream (docs/subagents.md, docs/events.md). A subagent is a whole
 * massgen run an agent spawned; its own events reach the parent's stream wrapped in `subagent.event`,
 * tagged with its id and the agent that spawned it (`agentId`), so a view can nest its run under that
 * agent by folding the wrapped events with the same reducers it uses for the parent.
 */

const base = {
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  ts: z.number(),
  /** The agent that spawned the subagent. */
  agentId: z.string(),
  subagentId: z.string(),
};

/** How a subagent's run ended, or that it still runs. */
export const SubagentStateSchema = z.enum(['running', 'completed', 'failed', 'timeout', 'cancelled']);
export type SubagentState = z.infer<typeof SubagentStateSchema>;

/** A subagent's run was started (or re-attached from its checkpoint). */
export const SubagentStartedSchema = z.object({
  ...base,
  type: z.literal('subagent.started'),
  task: z.string(),
  /** The `SUBAGENT.md` type it was started as, or null for a plain subagent. */
  subagentType: z.string().nullable(),
  /** Its own time limit in seconds (never the generic tool timeout). */
  timeoutSeconds: z.number().positive(),
  background: z.boolean(),
  /** Its log folder, inside the parent's (`subagents/<id>/…`), or null with logging off. */
  logDir: z.string().nullable(),
  /**
   * Taken over from a previous turn's checkpoint (`--continue`): that turn's log folder. A subagent
   * that had finished there is followed at once by its `subagent.finished`; one that was running is
   * started again.
   */
  resumedFrom: z.string().optional(),
});

/** One event of the subagent's own run, as that run emitted it. */
export const SubagentEventSchema = z.object({
  ...base,
  type: z.literal('subagent.event'),
  event: z.object({ type: z.string() }).loose(),
});

/** The subagent's run ended; its answer stays reachable by id (`subagent_result`). */
export const SubagentFinishedSchema = z.object({
  ...base,
  type: z.literal('subagent.finished'),
  state: SubagentStateSchema.exclude(['running']),
  answer: z.string().nullable(),
  /** Dollars it spent: counted into its parent agent and the run's `max_cost_usd`. */
  costUsd: z.number().nonnegative(),
  durationMs: z.number().nonnegative(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

export const subagentEventSchemas = [
  SubagentStartedSchema,
  SubagentEventSchema,
  SubagentFinishedSchema,
] as const;

/**
 * Dollars one event of a subagent's run says were spent: its model calls and paid tool calls, and
 * those of its own subagents (nested `subagent.event`s). Summed live by the parent and by views.
 */
export function subagentEventCost(event: { type: string; [key: string]: unknown }): number {
  if (event.type === 'agent.step.finished' || event.type === 'tool.call.finished')
    return typeof event.costUsd === 'number' ? event.costUsd : 0;
  if (event.type === 'subagent.event' && typeof event.event === 'object' && event.event !== null)
    return subagentEventCost(event.event as { type: string });
  return 0;
}
