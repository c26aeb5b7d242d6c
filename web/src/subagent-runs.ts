import type { RunEvent } from '../../src/types/events.js';

/**
 * Subagents in the web UI (docs/subagents.md): each spawned run nested under the agent that spawned
 * it, folded from the `subagent.*` events with the same reducer as the parent's own run view, so it
 * can be opened and watched like a run (its agents' streams, its answer and cost).
 */
export interface SubagentRun<V> {
  id: string;
  task: string;
  state: 'running' | 'completed' | 'failed' | 'timeout' | 'cancelled';
  costUsd: number;
  answer: string | null;
  /** The subagent's own run, as its events so far describe it. */
  view: V;
}

type SubagentEvent = Extract<RunEvent, { type: 'subagent.started' | 'subagent.event' | 'subagent.finished' }>;

export const isSubagentEvent = (event: RunEvent): event is SubagentEvent =>
  event.type.startsWith('subagent.');

/** Applies one `subagent.*` event to the runs by parent agent; `reduce` folds a subagent's own events. */
export function reduceSubagentRuns<V>(
  runs: Readonly<Record<string, SubagentRun<V>[]>>,
  event: SubagentEvent,
  initial: () => V,
  reduce: (view: V, event: RunEvent) => V,
): Record<string, SubagentRun<V>[]> {
  const list = runs[event.agentId] ?? [];
  const patch = (change: (run: SubagentRun<V>) => SubagentRun<V>) => ({
    ...runs,
    [event.agentId]: list.map((run) => (run.id === event.subagentId ? change(run) : run)),
  });
  switch (event.type) {
    case 'subagent.started':
      return {
        ...runs,
        [event.agentId]: [
          ...list,
          {
            id: event.subagentId,
            task: event.task,
            state: 'running',
            costUsd: 0,
            answer: null,
            view: initial(),
          },
        ],
      };
    case 'subagent.event':
      return patch((run) => ({ ...run, view: reduce(run.view, event.event as unknown as RunEvent) }));
    case 'subagent.finished':
      return patch((run) => ({ ...run, state: event.state, costUsd: event.costUsd, answer: event.answer }));
  }
}
