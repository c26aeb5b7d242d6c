import type { RunEvent } from '../types/events.js';
import { subagentEventCost } from '../types/subagent-events.js';
import { formatUsd } from '../util/cost-text.js';
import { detail, timeline, withAgent } from './view-state-helpers.js';
import type { SubagentView, ViewState } from './view-types.js';

type SubagentEvent = Extract<RunEvent, { type: 'subagent.started' | 'subagent.event' | 'subagent.finished' }>;

const cost = formatUsd;

/**
 * The live view's part of subagents (docs/subagents.md): a line per subagent in its parent's panel
 * (state and cost, kept current from the subagent's own events) and its start and end in the timeline.
 */
export function reduceSubagentEvent(state: ViewState, event: SubagentEvent): ViewState {
  const patch = (change: (s: SubagentView) => SubagentView) =>
    withAgent(state, event.agentId, (a) => ({
      ...a,
      subagents: a.subagents.map((s) => (s.id === event.subagentId ? change(s) : s)),
    }));
  switch (event.type) {
    case 'subagent.started':
      return timeline(
        withAgent(state, event.agentId, (a) => ({
          ...a,
          subagents: [
            ...a.subagents,
            { id: event.subagentId, task: event.task, state: 'running', costUsd: 0 },
          ],
        })),
        event,
        'subagent',
        `subagent ${event.subagentId} started (${event.timeoutSeconds}s): ${detail(event.task)}`,
      );
    case 'subagent.event': {
      const spent = subagentEventCost(event.event);
      return spent > 0 ? patch((s) => ({ ...s, costUsd: s.costUsd + spent })) : state;
    }
    case 'subagent.finished':
      return timeline(
        patch((s) => ({ ...s, state: event.state, costUsd: Math.max(s.costUsd, event.costUsd) })),
        event,
        'subagent',
        `subagent ${event.subagentId} ${event.state}, ${cost(event.costUsd)}` +
          (event.answer ? `: ${detail(event.answer)}` : ''),
      );
  }
}

/** A subagent's line in its parent's panel. */
export function subagentLine(subagent: SubagentView): string {
  const mark = subagent.state === 'running' ? '…' : subagent.state === 'completed' ? '✔' : '✖';
  return `↳ ${mark} ${subagent.id} ${subagent.state} ${cost(subagent.costUsd)} — ${subagent.task}`;
}
