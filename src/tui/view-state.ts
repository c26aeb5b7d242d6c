import type { ErrorInfo, Phase, RunEvent, TurnOutcome } from '../types/events.js';
import { reduceRunState } from '../types/run-state.js';
import { oneLine, truncate } from '../util/text.js';

/**
 * The live view's state: a pure reducer over the run's event stream. The canonical projection
 * (statuses, answers, votes, tallies, usage) is `reduceRunState`, kept as `state.run`; this adds only
 * what a live view shows on top of it — the text being streamed, tool activity, per-agent transcripts,
 * a timeline of significant events, and the final presentation. No coordination logic lives here.
 */

import type {
  AgentView,
  ApprovalState,
  PendingApproval,
  TextKind,
  TimelineKind,
  ToolActivity,
  TranscriptEntry,
  ViewState,
} from './view-types.js';

export * from './view-types.js';
export * from './badges.js';
export * from './ui-state.js';

export const emptyAgentView = (agentId: string): AgentView => ({
  agentId,
  text: '',
  reasoning: '',
  streaming: null,
  activity: 'idle',
  tool: null,
  retry: null,
  updateLabels: [],
  transcript: [],
  stepStart: { text: 0, reasoning: 0, transcript: 0, presentation: 0 },
});

/** Cut for reasons and messages in the timeline (the transcript keeps them whole). */
const DETAIL = 160;
/** Tool arguments and results kept for the transcript. */
const TOOL_TEXT = 2000;

const detail = (text: string): string => truncate(oneLine(text), DETAIL);

function json(value: unknown): string {
  try {
    return truncate(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), TOOL_TEXT);
  } catch {
    return truncate(String(value), TOOL_TEXT);
  }
}

function withAgent(state: ViewState, agentId: string, patch: (a: AgentView) => AgentView): ViewState {
  const current = state.agents[agentId] ?? emptyAgentView(agentId);
  return { ...state, agents: { ...state.agents, [agentId]: patch(current) } };
}

const push = (a: AgentView, entry: TranscriptEntry): AgentView => ({
  ...a,
  transcript: [...a.transcript, entry],
});

function timeline(
  state: ViewState,
  event: RunEvent,
  kind: TimelineKind,
  text: string,
  agentId: string | null = 'agentId' in event ? event.agentId : null,
): ViewState {
  return {
    ...state,
    timeline: [...state.timeline, { seq: event.seq, ts: event.ts, agentId, kind, text }],
  };
}

/** Appends streamed text to the agent's transcript, continuing the open text entry if there is one. */
function appendText(a: AgentView, phase: Phase, textKind: TextKind, text: string, ts: number): AgentView {
  const last = a.transcript.at(-1);
  if (last && last.kind === 'text' && last.phase === phase && last.textKind === textKind && a.streaming) {
    return { ...a, transcript: [...a.transcript.slice(0, -1), { ...last, text: last.text + text }] };
  }
  return push(a, { ts, kind: 'text', phase, textKind, text });
}

/** A tool call that has not finished: running, or held for approval. */
const unfinished = (tool: ToolActivity | null): boolean =>
  tool?.state === 'running' || tool?.state === 'awaiting-approval';

/** Updates the transcript entry of tool call `callId` (the latest one with that id). */
function patchToolEntry(
  a: AgentView,
  callId: string,
  patch: (entry: Extract<TranscriptEntry, { kind: 'tool' }>) => TranscriptEntry,
): AgentView {
  for (let i = a.transcript.length - 1; i >= 0; i--) {
    const entry = a.transcript[i];
    if (entry?.kind === 'tool' && entry.callId === callId) {
      const transcript = [...a.transcript];
      transcript[i] = patch(entry);
      return { ...a, transcript };
    }
  }
  return a;
}

/** Updates the agent's tool activity if it is call `callId`. */
const patchTool = (a: AgentView, callId: string, patch: Partial<ToolActivity>): AgentView =>
  a.tool && a.tool.callId === callId ? { ...a, tool: { ...a.tool, ...patch } } : a;

/**
 * Drops the pending approvals a run can no longer answer: those of `agentId` (its turn or
 * presentation ended, so its held calls were abandoned), or all of them (`null`: the run ended).
 */
function dropApprovals(state: ViewState, agentId: string | null): ViewState {
  const approvals =
    agentId === null ? [] : state.approvals.filter((approval) => approval.agentId !== agentId);
  return approvals.length === state.approvals.length ? state : { ...state, approvals };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Which tools run while the agents plan and which wait for the final presenter, on one line. */
function planningText(event: Extract<RunEvent, { type: 'planning.tools.classified' }>): string {
  const names = (allowed: boolean) =>
    [...new Set(event.decisions.filter((d) => d.allowed === allowed).map((d) => d.toolName))].join(', ') ||
    'none';
  return (
    `PLANNING: run now: ${names(true)}; deferred to the final presenter: ${names(false)}` +
    (event.analysisAgentId ? ` (unhinted tools classified by ${event.analysisAgentId})` : '') +
    (event.error ? `; classification FAILED, unhinted tools deferred: ${detail(event.error.message)}` : '')
  );
}

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
        },
        event,
        'run',
        `run started with ${event.agents.length} agent(s)`,
        null,
      );

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

    case 'tool.call.started': {
      const args = json(event.arguments);
      const providerExecuted = event.providerExecuted === true;
      return withAgent(state, event.agentId, (a) => ({
        ...push(a, {
          ts: event.ts,
          kind: 'tool',
          callId: event.callId,
          toolName: event.toolName,
          args,
          providerExecuted,
          result: null,
          isError: false,
          durationMs: null,
          deferred: false,
          approval: null,
        }),
        streaming: null,
        retry: null,
        activity: a.activity === 'answering' ? 'thinking' : a.activity,
        tool: {
          callId: event.callId,
          toolName: event.toolName,
          args,
          providerExecuted,
          state: 'running',
          durationMs: null,
        },
      }));
    }

    case 'tool.call.finished':
      return withAgent(state, event.agentId, (a) => {
        const deferred = event.deferred === true;
        const result = truncate(event.result, TOOL_TEXT);
        const patched = patchToolEntry(a, event.callId, (entry) => ({
          ...entry,
          result,
          isError: event.isError,
          durationMs: event.durationMs,
          deferred,
        }));
        const toolState: ToolActivity['state'] = deferred
          ? 'deferred'
          : a.tool?.state === 'denied'
            ? 'denied'
            : event.isError
              ? 'error'
              : 'ok';
        return patchTool(patched, event.callId, { state: toolState, durationMs: event.durationMs });
      });

    case 'tool.approval.requested': {
      const approval: PendingApproval = {
        agentId: event.agentId,
        callId: event.callId,
        toolName: event.toolName,
        phase: event.phase,
        args: json(event.arguments),
        seq: event.seq,
        ts: event.ts,
      };
      const next = withAgent(state, event.agentId, (a) =>
        patchTool(
          patchToolEntry(a, event.callId, (entry) => ({ ...entry, approval: { state: 'pending' } })),
          event.callId,
          { state: 'awaiting-approval' },
        ),
      );
      return timeline(
        { ...next, approvals: [...next.approvals, approval] },
        event,
        'approval',
        `APPROVAL NEEDED: ${event.toolName} ${truncate(oneLine(approval.args), 80)}`,
      );
    }

    case 'tool.approval.resolved': {
      const approval: ApprovalState = event.approved
        ? { state: 'approved' }
        : { state: 'denied', reason: event.reason ?? null };
      const next = withAgent(state, event.agentId, (a) =>
        patchTool(
          patchToolEntry(a, event.callId, (entry) => ({ ...entry, approval })),
          event.callId,
          { state: event.approved ? 'running' : 'denied' },
        ),
      );
      const approvals = next.approvals.filter(
        (p) => !(p.agentId === event.agentId && p.callId === event.callId),
      );
      return timeline(
        { ...next, approvals },
        event,
        event.approved ? 'approved' : 'denied',
        event.approved
          ? `${event.toolName} approved`
          : `${event.toolName} DENIED${event.reason ? `: ${detail(event.reason)}` : ''}`,
      );
    }

    case 'mcp.server.ready':
      return timeline(
        withAgent(state, event.agentId, (a) =>
          push(a, {
            ts: event.ts,
            kind: 'mcp-ready',
            server: event.server,
            tools: event.tools,
            durationMs: event.durationMs,
          }),
        ),
        event,
        'mcp-ready',
        `MCP "${event.server}" ready: ${plural(event.tools.length, 'tool')}`,
      );

    case 'mcp.server.failed':
      return timeline(
        withAgent(state, event.agentId, (a) =>
          push(a, {
            ts: event.ts,
            kind: 'mcp-failed',
            server: event.server,
            message: event.message,
            retryInSeconds: event.retryInSeconds,
          }),
        ),
        event,
        'mcp-failed',
        `MCP "${event.server}" FAILED: ${detail(event.message)} (` +
          (event.retryInSeconds === null ? 'off for this run' : `retry in ${event.retryInSeconds}s`) +
          ')',
      );

    case 'planning.tools.classified':
      return timeline(state, event, 'planning', planningText(event), null);

    case 'workflow.rejected':
      return timeline(
        withAgent(state, event.agentId, (a) =>
          push(a, {
            ts: event.ts,
            kind: 'rejected',
            toolName: event.toolName,
            reason: event.reason,
            retriesLeft: event.retriesLeft,
          }),
        ),
        event,
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
