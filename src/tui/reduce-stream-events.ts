import type { RunEvent } from '../types/events.js';
import { appendText, detail, push, timeline, withAgent } from './view-state-helpers.js';
import type { ViewState } from './view-types.js';

/** The events of an agent's turn as it streams: its steps, its text and reasoning, its retries. */
export type StreamEvent = Extract<
  RunEvent,
  {
    type:
      | 'agent.turn.started'
      | 'agent.step.started'
      | 'agent.text.start'
      | 'agent.text.delta'
      | 'agent.text.end'
      | 'agent.step.finished'
      | 'agent.step.retrying';
  }
>;

/**
 * Applies one {@link StreamEvent} to a state whose run projection is already updated: the panel's
 * text and activity, the transcript, the presentation's text, and a retry's cut of the partial step.
 */
export function reduceStreamEvent(state: ViewState, event: StreamEvent): ViewState {
  switch (event.type) {
    case 'agent.turn.started':
      return timeline(
        withAgent(state, event.agentId, (a) =>
          push(
            {
              ...a,
              text: '',
              reasoning: '',
              streaming: null,
              activity: 'thinking',
              tool: null,
              retry: null,
              updateLabels: [],
            },
            { ts: event.ts, kind: 'turn', turn: event.turn, visibleAnswers: event.visibleAnswers },
          ),
        ),
        event,
        'turn',
        `turn ${event.turn} started` +
          (event.visibleAnswers.length > 0 ? `; sees ${event.visibleAnswers.join(', ')}` : ''),
      );

    case 'agent.step.started':
      return withAgent(state, event.agentId, (a) => ({
        ...a,
        activity: a.activity === 'updated' ? 'updated' : a.streaming === 'text' ? 'answering' : 'thinking',
        stepStart: {
          text: a.text.length,
          reasoning: a.reasoning.length,
          transcript: a.transcript.length,
          presentation: state.presentation?.agentId === a.agentId ? state.presentation.text.length : 0,
        },
      }));

    case 'agent.text.start':
      return withAgent(state, event.agentId, (a) => ({
        ...push(a, { ts: event.ts, kind: 'text', phase: event.phase, textKind: event.kind, text: '' }),
        streaming: event.kind,
        retry: null,
        activity: event.kind === 'text' ? 'answering' : a.activity === 'updated' ? 'updated' : 'thinking',
      }));

    case 'agent.text.delta': {
      const next = withAgent(state, event.agentId, (a) => {
        const appended = appendText(a, event.phase, event.kind, event.text, event.ts);
        return {
          ...appended,
          streaming: event.kind,
          retry: null,
          ...(event.kind === 'text'
            ? { text: a.text + event.text, activity: 'answering' as const }
            : { reasoning: a.reasoning + event.text }),
        };
      });
      if (
        event.phase === 'presentation' &&
        event.kind === 'text' &&
        next.presentation?.agentId === event.agentId
      ) {
        return { ...next, presentation: { ...next.presentation, text: next.presentation.text + event.text } };
      }
      return next;
    }

    case 'agent.text.end':
      return withAgent(state, event.agentId, (a) => ({ ...a, streaming: null }));

    case 'agent.step.finished':
      return withAgent(state, event.agentId, (a) => ({ ...a, retry: null, streaming: null }));

    case 'agent.step.retrying': {
      // The retry streams the step again: cut its partial output (panel text, transcript, presentation).
      const message = event.error.message;
      const next = withAgent(state, event.agentId, (a) => {
        const transcript = [
          ...a.transcript.slice(0, a.stepStart.transcript),
          {
            ts: event.ts,
            kind: 'retry' as const,
            attempt: event.attempt,
            delayMs: event.delayMs,
            message,
          },
        ];
        const text = a.text.slice(0, a.stepStart.text);
        const reasoning = a.reasoning.slice(0, a.stepStart.reasoning);
        return {
          ...a,
          text,
          reasoning,
          transcript,
          streaming: null,
          activity: 'retrying',
          retry: { attempt: event.attempt, delayMs: event.delayMs, message },
          stepStart: { ...a.stepStart, transcript: transcript.length },
        };
      });
      const presentation =
        next.presentation && next.presentation.agentId === event.agentId
          ? {
              ...next.presentation,
              text: next.presentation.text.slice(0, next.agents[event.agentId]?.stepStart.presentation ?? 0),
            }
          : next.presentation;
      return timeline(
        { ...next, presentation },
        event,
        'retry',
        `retry ${event.attempt} in ${(event.delayMs / 1000).toFixed(1)}s: ${detail(message)}`,
      );
    }
  }
}
