import type { ErrorInfo, Phase, RunEvent, TurnOutcome } from '../types/events.js';
import { initialRunState, reduceRunState, type AgentState, type RunState } from '../types/run-state.js';
import { oneLine, truncate } from '../util/text.js';

/**
 * The live view's state: a pure reducer over the run's event stream. The canonical projection
 * (statuses, answers, votes, tallies, usage) is `reduceRunState`, kept as `state.run`; this adds only
 * what a live view shows on top of it — the text being streamed, tool activity, per-agent transcripts,
 * a timeline of significant events, and the final presentation. No coordination logic lives here.
 */

export type TextKind = 'text' | 'reasoning';

/** The last tool call of an agent, for its one-line activity display. */
export interface ToolActivity {
  callId: string;
  toolName: string;
  /** The arguments as one line of JSON. */
  args: string;
  /** A built-in tool the provider ran itself (web search, code execution). */
  providerExecuted: boolean;
  state: 'running' | 'ok' | 'error';
  durationMs: number | null;
}

/** One item of an agent's full transcript (the detail view), in event order. */
export type TranscriptEntry = { ts: number } & (
  | { kind: 'turn'; turn: number; visibleAnswers: string[] }
  | { kind: 'text'; phase: Phase; textKind: TextKind; text: string }
  | {
      kind: 'tool';
      callId: string;
      toolName: string;
      args: string;
      providerExecuted: boolean;
      result: string | null;
      isError: boolean;
      durationMs: number | null;
    }
  | { kind: 'retry'; attempt: number; delayMs: number; message: string }
  | { kind: 'rejected'; toolName: string | null; reason: string; retriesLeft: number }
  | { kind: 'answer'; label: string; content: string }
  | { kind: 'vote'; targetAgentId: string; targetLabel: string; reason: string; counted: boolean }
  | { kind: 'votes-reset'; causedBy: string }
  | { kind: 'update'; labels: string[] }
  | { kind: 'restart'; reason: string }
  | { kind: 'turn-ended'; turn: number; outcome: 'failed' | 'aborted'; error: ErrorInfo | null }
  | { kind: 'dropped'; reason: string }
  | { kind: 'presentation'; mode: 'present' | 'verbatim' }
  | { kind: 'final'; label: string; fallback: boolean; error: ErrorInfo | null }
);

/** What the agent is doing inside its current turn (refines `AgentState.status` for the badge). */
export type AgentActivity = 'idle' | 'thinking' | 'answering' | 'updated' | 'retrying';

export interface AgentView {
  agentId: string;
  /** Model output (`text` kind) streamed in the current turn, or during the presentation. */
  text: string;
  /** Reasoning streamed in the current turn. */
  reasoning: string;
  /** The kind of the text block being streamed, or null between blocks. */
  streaming: TextKind | null;
  activity: AgentActivity;
  /** The latest tool call of the current turn. */
  tool: ToolActivity | null;
  /** The retry being waited for, until the model call streams again. */
  retry: { attempt: number; delayMs: number; message: string } | null;
  /** Labels of the last update injected into the current turn. */
  updateLabels: string[];
  transcript: TranscriptEntry[];
  /** Lengths at the start of the current model call: a retry cuts the partial output back to them. */
  stepStart: { text: number; reasoning: number; transcript: number; presentation: number };
}

export type TimelineKind =
  | 'run'
  | 'turn'
  | 'retry'
  | 'rejected'
  | 'answer'
  | 'vote'
  | 'stale-vote'
  | 'votes-reset'
  | 'update'
  | 'restart'
  | 'failed'
  | 'aborted'
  | 'dropped'
  | 'coordination'
  | 'presentation'
  | 'final'
  | 'finished';

/** One significant event, for the coordination timeline. `agentId` is null for run-wide events. */
export interface TimelineEntry {
  seq: number;
  ts: number;
  agentId: string | null;
  kind: TimelineKind;
  text: string;
}

export interface PresentationView {
  agentId: string;
  mode: 'present' | 'verbatim';
  /** The final answer as it streams. */
  text: string;
}

export interface FinalAnswerView {
  agentId: string;
  /** `agentN.final` */
  label: string;
  content: string;
  /** The stored answer was used because the presentation failed or was empty. */
  fallback: boolean;
  error: ErrorInfo | null;
}

export interface ViewState {
  /** The canonical projection, from `reduceRunState`. */
  run: RunState;
  /** Per agent id. */
  agents: Record<string, AgentView>;
  timeline: TimelineEntry[];
  presentation: PresentationView | null;
  final: FinalAnswerView | null;
  /** Events applied so far. */
  eventCount: number;
}

export const initialViewState = (): ViewState => ({
  run: initialRunState(),
  agents: {},
  timeline: [],
  presentation: null,
  final: null,
  eventCount: 0,
});

const emptyAgentView = (agentId: string): AgentView => ({
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
        let index = -1;
        for (let i = a.transcript.length - 1; i >= 0; i--) {
          const entry = a.transcript[i];
          if (entry?.kind === 'tool' && entry.callId === event.callId) {
            index = i;
            break;
          }
        }
        const result = truncate(event.result, TOOL_TEXT);
        const transcript =
          index < 0
            ? a.transcript
            : a.transcript.map((entry, i) =>
                i === index && entry.kind === 'tool'
                  ? { ...entry, result, isError: event.isError, durationMs: event.durationMs }
                  : entry,
              );
        const tool =
          a.tool && a.tool.callId === event.callId
            ? {
                ...a.tool,
                state: event.isError ? ('error' as const) : ('ok' as const),
                durationMs: event.durationMs,
              }
            : a.tool;
        return { ...a, transcript, tool };
      });

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
        withAgent(state, event.agentId, (a) => ({
          ...push(a, { ts: event.ts, kind: 'restart', reason: event.reason }),
          streaming: null,
          activity: 'idle',
        })),
        event,
        'restart',
        `turn restarted: ${detail(event.reason)}`,
      );

    case 'agent.turn.finished': {
      const ended = withAgent(state, event.agentId, (a) => {
        const base = { ...a, streaming: null, activity: 'idle' as const, retry: null };
        if (event.outcome !== 'failed' && event.outcome !== 'aborted') return base;
        const tool = base.tool?.state === 'running' ? null : base.tool;
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
        withAgent(state, event.agentId, (a) => ({
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
          ...withAgent(state, event.agentId, (a) => ({
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
          a.activity === 'idle' && a.streaming === null && a.tool?.state !== 'running'
            ? a
            : {
                ...a,
                activity: 'idle' as const,
                streaming: null,
                retry: null,
                tool: a.tool?.state === 'running' ? null : a.tool,
              },
        ]),
      );
      const duration = state.run.startedAt === null ? event.durationMs : event.ts - state.run.startedAt;
      return timeline(
        { ...state, agents },
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

// ---------------------------------------------------------------------------------------------------
// Badges: the one-word status of an agent panel.

export type BadgeKind =
  | 'waiting'
  | 'thinking'
  | 'answering'
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

export type UiMode = 'panels' | 'agent' | 'table' | 'votes';

export interface UiState {
  mode: UiMode;
  /** Index (in run order) of the agent whose transcript `agent` mode shows. */
  selectedAgent: number;
  /** Lines scrolled back from the end in the transcript, timeline and votes screens (0: follow). */
  scroll: number;
  /** `q` or Ctrl-C was pressed. */
  cancelRequested: boolean;
}

export const initialUiState = (): UiState => ({
  mode: 'panels',
  selectedAgent: 0,
  scroll: 0,
  cancelRequested: false,
});

/** A key press, shaped like Ink's `useInput` arguments (`input` plus the flags of `Key`). */
export interface UiKey {
  input: string;
  ctrl?: boolean;
  escape?: boolean;
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
}

export interface UiContext {
  /** Agents in the run: digits past it are ignored. */
  agentCount: number;
  /** How far the current screen can scroll back (unbounded when omitted). */
  maxScroll?: number;
}

const PAGE = 10;

/**
 * Applies one key press. Returns the same object when the key means nothing, so callers can skip a
 * re-render. `1`..`9`: that agent's transcript; `r`: the timeline; `v`: the votes; `Esc`/`b`: back to
 * the panels; `←`/`→`: previous/next agent's transcript; `↑`/`↓`/PgUp/PgDn/Home/End: scroll;
 * `q`/Ctrl-C: request cancellation.
 */
export function reduceUi(ui: UiState, key: UiKey, context: UiContext): UiState {
  const input = key.input;
  if ((key.ctrl && input === 'c') || (!key.ctrl && input === 'q')) {
    return ui.cancelRequested ? ui : { ...ui, cancelRequested: true };
  }
  if (key.ctrl) return ui;
  if (key.escape || input === 'b') {
    return ui.mode === 'panels' && ui.scroll === 0 ? ui : { ...ui, mode: 'panels', scroll: 0 };
  }
  if (/^[1-9]$/.test(input)) {
    const index = Number(input) - 1;
    if (index >= context.agentCount) return ui;
    return { ...ui, mode: 'agent', selectedAgent: index, scroll: 0 };
  }
  if (input === 'r') return ui.mode === 'table' ? ui : { ...ui, mode: 'table', scroll: 0 };
  if (input === 'v') return ui.mode === 'votes' ? ui : { ...ui, mode: 'votes', scroll: 0 };
  if (ui.mode === 'agent' && context.agentCount > 0 && (key.leftArrow || key.rightArrow)) {
    const step = key.rightArrow ? 1 : -1;
    const selectedAgent = (ui.selectedAgent + step + context.agentCount) % context.agentCount;
    return { ...ui, selectedAgent, scroll: 0 };
  }
  if (ui.mode === 'panels') return ui;
  const max = Math.max(0, context.maxScroll ?? Number.MAX_SAFE_INTEGER);
  let scroll = ui.scroll;
  if (key.upArrow || input === 'k') scroll += 1;
  else if (key.downArrow || input === 'j') scroll -= 1;
  else if (key.pageUp) scroll += PAGE;
  else if (key.pageDown) scroll -= PAGE;
  else if (key.home) scroll = max;
  else if (key.end) scroll = 0;
  else return ui;
  scroll = Math.min(max, Math.max(0, scroll));
  return scroll === ui.scroll ? ui : { ...ui, scroll };
}

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
