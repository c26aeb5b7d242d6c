import type { ErrorInfo, RunEvent, TurnOutcome } from '../types/events.js';
import { reduceRunState } from '../types/run-state.js';
import { isVoteBeingWritten, reduceSteeringEvent, reduceVoteWriting } from './reduce-steering-events.js';
import { reduceStreamEvent } from './reduce-stream-events.js';
import { reduceToolEvent } from './reduce-tool-events.js';
import { reduceSubagentEvent } from './reduce-subagent-events.js';
import {
  agentEntry,
  detail,
  dropApprovals,
  emptyAgentView,
  push,
  timeline,
  unfinished,
  withAgent,
} from './view-state-helpers.js';
import type { ViewState } from './view-types.js';
import { mediaLabel } from '../media/media-label.js';

/**
 * The live view's state: a pure reducer over the run's event stream. The canonical projection
 * (statuses, answers, votes, tallies, usage) is `reduceRunState`, kept as `state.run`; this adds only
 * what a live view shows on top of it — the text being streamed, tool activity, per-agent transcripts,
 * a timeline of significant events, and the final presentation. No coordination logic lives here.
 */

export * from './view-types.js';
export * from './badges.js';
export * from './ui-state.js';
export { emptyAgentView };

const turnOutcomeText = (turn: number, outcome: TurnOutcome, error: ErrorInfo | undefined, n: number) =>
  outcome === 'failed'
    ? `turn ${turn} FAILED${error ? `: ${detail(error.message)}` : ''} (${n} in a row)`
    : `turn ${turn} aborted`;

/** Applies one event. Pure: returns a new state, never mutates. */
export function reduceView(previous: ViewState, event: RunEvent): ViewState {
  const state: ViewState = {
    ...previous,
    run: reduceRunState(previous.run, event),
    eventCount: previous.eventCount + 1,
  };
  switch (event.type) {
    case 'run.started':
      return timeline(
        {
          ...state,
          agents: Object.fromEntries(event.agents.map((a) => [a.agentId, emptyAgentView(a.agentId)])),
          timeline: [],
          presentation: null,
          final: null,
          approvals: [],
          messages: [],
        },
        event,
        'run',
        `run started with ${event.agents.length} agent(s)` +
          // Each attachment by name, kind and size: what the user sent, as the agents got it.
          (event.attachments?.length
            ? `; attached ${event.attachments.map((m) => mediaLabel(m)).join(', ')}`
            : ''),
        null,
      );

    case 'run.warning':
      return timeline(state, event, 'warning', `warning: ${event.message}`, null);
    case 'coordination.wrap_up':
      return timeline(
        state,
        event,
        'warning',
        `about ${Math.round(event.remainingMs / 1000)}s left: wrap up`,
        null,
      );
    case 'coordination.final_round':
      return timeline(
        state,
        event,
        'coordination',
        `final round among ${event.finalists.map((f) => f.label).join(', ')}`,
        null,
      );
    case 'selection.judged':
      return timeline(
        state,
        event,
        'coordination',
        `judged: ${event.winnerId ?? 'no valid pick'} — ${event.reason}`,
      );
    case 'orchestration.checked':
      return event.accepted
        ? timeline(state, event, 'coordination', 'final answer accepted')
        : timeline(state, event, 'restart', `final answer sent back: ${event.reason ?? ''}`);
    case 'orchestration.restarted':
      return timeline(state, event, 'restart', `attempt ${event.attempt}: ${event.instructions}`, null);
    case 'agent.context.trimmed':
      return timeline(
        state,
        event,
        'warning',
        `context trimmed (~${event.beforeTokens} → ~${event.afterTokens} tokens)`,
      );
    case 'agent.context.compressed':
      return timeline(
        state,
        event,
        'warning',
        `context compressed: ${event.summarisedMessages} older messages summarised (~${event.beforeTokens} → ~${event.afterTokens} tokens, ~${event.savedTokens} saved)`,
      );

    case 'agent.turn.started':
    case 'agent.step.started':
    case 'agent.text.start':
    case 'agent.text.delta':
    case 'agent.text.end':
    case 'agent.step.finished':
    case 'agent.step.retrying':
      return reduceStreamEvent(state, event);

    case 'tool.call.started':
    case 'tool.call.finished':
      return isVoteBeingWritten(event) ? reduceVoteWriting(state, event) : reduceToolEvent(state, event);
    case 'human.message':
    case 'human.message.delivered':
    case 'coordination.answer_now':
      return reduceSteeringEvent(state, event);
    // ask_others (docs/ask-others.md): each question and answer is a timeline line.
    case 'ask_others.asked':
      return timeline(
        state,
        event,
        'human',
        `QUESTION from ${event.agentId} to ${event.mode === 'human' ? 'you (press m to answer)' : event.targets.join(', ')}: ${detail(event.question)}`,
      );
    case 'ask_others.answered':
      return timeline(
        state,
        event,
        'human',
        event.outcome === 'answered'
          ? `ANSWER to ${event.agentId} from ${event.from === 'human' ? 'you' : event.from}: ${detail(event.answer ?? '')}`
          : `NO ANSWER to ${event.agentId}${event.from ? ` from ${event.from}` : ''} (${event.outcome})`,
      );
    case 'tool.approval.requested':
    case 'tool.approval.resolved':
    case 'mcp.server.ready':
    case 'mcp.server.failed':
    case 'planning.tools.classified':
      return reduceToolEvent(state, event);
    case 'subagent.started':
    case 'subagent.event':
    case 'subagent.finished':
      return reduceSubagentEvent(state, event);

    case 'workflow.rejected':
      return agentEntry(
        state,
        event,
        {
          ts: event.ts,
          kind: 'rejected',
          toolName: event.toolName,
          reason: event.reason,
          retriesLeft: event.retriesLeft,
        },
        'rejected',
        `${event.toolName ?? 'missing workflow call'} rejected (${event.retriesLeft} retries left): ${detail(event.reason)}`,
      );

    case 'answer.submitted':
      return timeline(
        withAgent(state, event.agentId, (a) => ({
          ...push(a, { ts: event.ts, kind: 'answer', label: event.label, content: event.content }),
          streaming: null,
          activity: 'idle',
        })),
        event,
        'answer',
        `ANSWER ${event.label}`,
      );

    case 'votes.reset': {
      let next = state;
      for (const voter of event.clearedVoters) {
        next = withAgent(next, voter, (a) =>
          push(a, { ts: event.ts, kind: 'votes-reset', causedBy: event.causedBy }),
        );
      }
      return timeline(
        next,
        event,
        'votes-reset',
        `VOTES RESET by ${event.causedBy}` +
          (event.clearedVoters.length > 0 ? `; cleared ${event.clearedVoters.join(', ')}` : ''),
        null,
      );
    }

    case 'vote.cast':
      return timeline(
        withAgent(state, event.agentId, (a) => ({
          ...push(a, {
            ts: event.ts,
            kind: 'vote',
            targetAgentId: event.targetAgentId,
            targetLabel: event.targetLabel,
            reason: event.reason,
            counted: event.counted,
          }),
          streaming: null,
          ...(event.counted ? { activity: 'idle' as const } : {}),
        })),
        event,
        event.counted ? 'vote' : 'stale-vote',
        `VOTE ${event.targetLabel} (${event.targetAgentId}) ${event.counted ? 'counted' : 'stale, not counted'}: ${detail(event.reason)}`,
      );

    case 'agent.update.injected':
      return timeline(
        withAgent(state, event.agentId, (a) => ({
          ...push(a, { ts: event.ts, kind: 'update', labels: event.labels }),
          activity: 'updated',
          updateLabels: event.labels,
        })),
        event,
        'update',
        `update received: ${event.labels.join(', ') || '(none)'}`,
      );

    case 'agent.turn.restarted':
      return timeline(
        withAgent(dropApprovals(state, event.agentId), event.agentId, (a) => ({
          ...push(a, { ts: event.ts, kind: 'restart', reason: event.reason }),
          streaming: null,
          activity: 'idle',
        })),
        event,
        'restart',
        `turn restarted: ${detail(event.reason)}`,
      );

    case 'agent.turn.finished': {
      const ended = withAgent(dropApprovals(state, event.agentId), event.agentId, (a) => {
        const base = { ...a, streaming: null, activity: 'idle' as const, retry: null };
        if (event.outcome !== 'failed' && event.outcome !== 'aborted') return base;
        const tool = unfinished(base.tool) ? null : base.tool;
        return push(
          { ...base, tool },
          {
            ts: event.ts,
            kind: 'turn-ended',
            turn: event.turn,
            outcome: event.outcome,
            error: event.error ?? null,
          },
        );
      });
      if (event.outcome !== 'failed' && event.outcome !== 'aborted') return ended;
      return timeline(
        ended,
        event,
        event.outcome,
        turnOutcomeText(event.turn, event.outcome, event.error, event.consecutiveFailures),
      );
    }

    case 'agent.dropped':
      return timeline(
        withAgent(dropApprovals(state, event.agentId), event.agentId, (a) => ({
          ...push(a, { ts: event.ts, kind: 'dropped', reason: event.reason }),
          activity: 'idle',
          streaming: null,
        })),
        event,
        'dropped',
        `DROPPED: ${detail(event.reason)}`,
      );

    case 'coordination.finished': {
      const tallies = Object.entries(event.tallies)
        .map(([id, count]) => `${id}=${count}`)
        .join(', ');
      return timeline(
        state,
        event,
        'coordination',
        `COORDINATION FINISHED (${event.reason})` +
          (event.winnerId
            ? `; winner ${event.winnerId} (${event.winnerLabel ?? 'no label'})`
            : '; no winner') +
          (tallies ? `; votes ${tallies}` : ''),
        null,
      );
    }

    case 'presentation.started':
      return timeline(
        {
          ...withAgent(state, event.agentId, (a) => ({
            ...push(a, { ts: event.ts, kind: 'presentation', mode: event.mode }),
            text: '',
            reasoning: '',
            streaming: null,
            tool: null,
            retry: null,
            activity: 'thinking',
          })),
          presentation: { agentId: event.agentId, mode: event.mode, text: '' },
        },
        event,
        'presentation',
        `presenting the final answer (${event.mode})`,
      );

    case 'presentation.finished':
      return timeline(
        {
          ...withAgent(dropApprovals(state, event.agentId), event.agentId, (a) => ({
            ...push(a, {
              ts: event.ts,
              kind: 'final',
              label: event.label,
              fallback: event.fallback,
              error: event.error ?? null,
            }),
            streaming: null,
            activity: 'idle',
          })),
          final: {
            agentId: event.agentId,
            label: event.label,
            content: event.content,
            fallback: event.fallback,
            error: event.error ?? null,
          },
        },
        event,
        'final',
        `FINAL ${event.label}` +
          (event.fallback
            ? ` (stored answer used${event.error ? `: ${detail(event.error.message)}` : ''})`
            : ''),
      );

    case 'run.finished': {
      const agents = Object.fromEntries(
        Object.entries(state.agents).map(([id, a]) => [
          id,
          a.activity === 'idle' && a.streaming === null && !unfinished(a.tool)
            ? a
            : {
                ...a,
                activity: 'idle' as const,
                streaming: null,
                retry: null,
                tool: unfinished(a.tool) ? null : a.tool,
              },
        ]),
      );
      const duration = state.run.startedAt === null ? event.durationMs : event.ts - state.run.startedAt;
      return timeline(
        { ...dropApprovals(state, null), agents },
        event,
        'finished',
        `RUN FINISHED: ${event.status}, exit code ${event.exitCode}, ${(duration / 1000).toFixed(1)}s` +
          (event.error ? `; ${detail(event.error.message)}` : ''),
        null,
      );
    }

    default:
      return state;
  }
}

/** Applies many events (a replay, or a batch). */
export function reduceViewAll(state: ViewState, events: Iterable<RunEvent>): ViewState {
  let next = state;
  for (const event of events) next = reduceView(next, event);
  return next;
}
