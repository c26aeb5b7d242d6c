/**
 * Which run events matter to something holding tool calls for approval (the terminal prompt, the
 * approvals file): one routing, so every holder abandons a held call at the same moments.
 */
import type { RunEvent, RunEventOf } from '../types/events.js';

/** What a holder of pending approvals does at each event that concerns them. */
export interface ApprovalEventHandlers {
  requested(event: RunEventOf<'tool.approval.requested'>): void;
  /** Answered elsewhere (another channel, or a rule). */
  resolved(event: RunEventOf<'tool.approval.resolved'>): void;
  /** The agent's turn or presentation ended (or it was dropped): its held calls are abandoned. */
  agentEnded(agentId: string): void;
  runFinished(): void;
}

/** Calls the handler `event` concerns; other events are ignored. */
export function routeApprovalEvent(event: RunEvent, handlers: ApprovalEventHandlers): void {
  switch (event.type) {
    case 'tool.approval.requested':
      handlers.requested(event);
      return;
    case 'tool.approval.resolved':
      handlers.resolved(event);
      return;
    case 'agent.turn.finished':
    case 'agent.turn.restarted':
    case 'agent.dropped':
    case 'presentation.finished':
      handlers.agentEnded(event.agentId);
      return;
    case 'run.finished':
      handlers.runFinished();
      return;
    default:
      return;
  }
}
