import type { AgentState, RunState } from '../types/run-state.js';
import type { AgentView, ViewState } from './view-types.js';
import { emptyAgentView } from './view-state-helpers.js';

// ---------------------------------------------------------------------------------------------------
// Badges: the one-word status of an agent panel.

export type BadgeKind =
  | 'waiting'
  | 'thinking'
  | 'answering'
  | 'voting'
  | 'updated'
  | 'retrying'
  | 'answered'
  | 'voted'
  | 'vote-reset'
  | 'failed'
  | 'dropped'
  | 'presenting'
  | 'done'
  | 'stopped';

export interface Badge {
  kind: BadgeKind;
  text: string;
}

/** The badge of one agent: its `RunState` status refined by what the live view knows of its turn. */
export function agentBadge(run: RunState, agent: AgentState, view: AgentView | undefined): Badge {
  const badge = (kind: BadgeKind, text: string = kind): Badge => ({ kind, text });
  switch (agent.status) {
    case 'waiting':
      return run.phase === 'finished' ? badge('stopped') : badge('waiting');
    case 'thinking': {
      // Coordination is over (or the run ended) while this turn ran: it was abandoned.
      if (run.coordinationEnd !== null || run.phase === 'finished') return badge('stopped');
      switch (view?.activity) {
        case 'retrying':
          return badge('retrying', `retrying (${view.retry?.attempt ?? 1})`);
        case 'answering':
          return badge('answering');
        case 'voting':
          // A `vote` tool call started and not finished: the model is writing its vote.
          return badge('voting');
        case 'updated':
          return badge(
            'updated',
            view.updateLabels.length > 0 ? `updated (${view.updateLabels.join(', ')})` : 'updated',
          );
        default:
          return badge('thinking');
      }
    }
    case 'answered':
      return badge('answered');
    case 'voted':
      return agent.vote
        ? badge('voted', `voted → ${agent.vote.targetLabel}`)
        : badge('vote-reset', 'vote reset');
    case 'stopped':
      return badge('stopped');
    case 'failed':
      return badge('failed');
    case 'dropped':
      return badge('dropped');
    case 'presenting':
      return view?.activity === 'retrying'
        ? badge('retrying', `presenting, retrying (${view.retry?.attempt ?? 1})`)
        : badge('presenting');
    case 'done':
      return badge('done');
  }
}

// ---------------------------------------------------------------------------------------------------
// UI state: which screen shows, driven by keys. Pure as well; the caller acts on `cancelRequested`.

// ---------------------------------------------------------------------------------------------------
// Selectors.

/** The agents in run order, each with its canonical state, its view and its badge. */
export function agentRows(
  state: ViewState,
): { agent: AgentState; view: AgentView; badge: Badge; index: number }[] {
  return state.run.agents.map((agent, index) => {
    const view = state.agents[agent.agentId] ?? emptyAgentView(agent.agentId);
    return { agent, view, badge: agentBadge(state.run, agent, view), index };
  });
}
