import type { RunEvent } from '../types/events.js';
import { detail, push, timeline, withAgent } from './view-state-helpers.js';
import type { ViewState } from './view-types.js';

/**
 * The live view's part of steering (docs/protocol.md): the user's messages (in the timeline when the
 * run accepts them, in an agent's transcript where it read them), "answer now", and an agent writing a
 * vote (a `vote` tool call started and not finished: the "voting" badge).
 */
export type SteeringEvent = Extract<
  RunEvent,
  { type: 'human.message' | 'human.message.delivered' | 'coordination.answer_now' }
>;

type ToolCallEvent = Extract<RunEvent, { type: 'tool.call.started' | 'tool.call.finished' }>;

export { isVoteBeingWritten } from '../types/run-state.js';

/** Applies a `vote` tool call's start or end: the agent's activity, nothing in its tool display. */
export function reduceVoteWriting(state: ViewState, event: ToolCallEvent): ViewState {
  return withAgent(state, event.agentId, (a) =>
    event.type === 'tool.call.started'
      ? { ...a, activity: 'voting', streaming: null, retry: null }
      : a.activity === 'voting'
        ? { ...a, activity: 'thinking' }
        : a,
  );
}

/** Applies one steering event (`state` already carries the event's run projection and count). */
export function reduceSteeringEvent(state: ViewState, event: SteeringEvent): ViewState {
  switch (event.type) {
    case 'human.message': {
      const next: ViewState = {
        ...state,
        messages: [
          ...state.messages,
          {
            seq: event.seq,
            ts: event.ts,
            text: event.text,
            target: event.target,
            source: event.source,
            deliveredTo: [],
          },
        ],
      };
      return timeline(
        next,
        event,
        'human',
        `MESSAGE from the user (${event.source}) to ${event.target ?? 'all agents'}: ${detail(event.text)}`,
        event.target,
      );
    }
    case 'human.message.delivered': {
      const message = state.messages.find((m) => m.seq === event.messageSeq);
      if (!message) return state;
      const messages = state.messages.map((m) =>
        m === message ? { ...m, deliveredTo: [...m.deliveredTo, event.agentId] } : m,
      );
      return withAgent({ ...state, messages }, event.agentId, (a) =>
        push(a, {
          ts: event.ts,
          kind: 'human',
          text: message.text,
          source: message.source,
          toAll: message.target === null,
        }),
      );
    }
    case 'coordination.answer_now':
      return timeline(
        state,
        event,
        'coordination',
        `ANSWER NOW requested (${event.source}): the best current answer is presented`,
        null,
      );
  }
}
