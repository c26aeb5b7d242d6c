import type { Phase, RunEvent } from '../types/events.js';
import { oneLine, truncate } from '../util/text.js';
import type {
  AgentView,
  TextKind,
  TimelineKind,
  ToolActivity,
  TranscriptEntry,
  ViewState,
} from './view-types.js';

/**
 * The building blocks the view reducers share. They live apart from `reduceView` so the per-topic
 * reducers (tool events) can use them without importing `view-state.ts`, which imports them back.
 */

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
  subagents: [],
});

/** Cut for reasons and messages in the timeline (the transcript keeps them whole). */
const DETAIL = 160;
/** Tool arguments and results kept for the transcript. */
export const TOOL_TEXT = 2000;

export const detail = (text: string): string => truncate(oneLine(text), DETAIL);

export function json(value: unknown): string {
  try {
    return truncate(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), TOOL_TEXT);
  } catch {
    return truncate(String(value), TOOL_TEXT);
  }
}

export function withAgent(state: ViewState, agentId: string, patch: (a: AgentView) => AgentView): ViewState {
  const current = state.agents[agentId] ?? emptyAgentView(agentId);
  return { ...state, agents: { ...state.agents, [agentId]: patch(current) } };
}

export const push = (a: AgentView, entry: TranscriptEntry): AgentView => ({
  ...a,
  transcript: [...a.transcript, entry],
});

export function timeline(
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

/** The common case: one transcript entry for the event's agent and one timeline line for the run. */
export function agentEntry(
  state: ViewState,
  event: Extract<RunEvent, { agentId: string }>,
  entry: TranscriptEntry,
  kind: TimelineKind,
  text: string,
): ViewState {
  return timeline(
    withAgent(state, event.agentId, (a) => push(a, entry)),
    event,
    kind,
    text,
  );
}

/** Appends streamed text to the agent's transcript, continuing the open text entry if there is one. */
export function appendText(
  a: AgentView,
  phase: Phase,
  textKind: TextKind,
  text: string,
  ts: number,
): AgentView {
  const last = a.transcript.at(-1);
  if (last && last.kind === 'text' && last.phase === phase && last.textKind === textKind && a.streaming) {
    return { ...a, transcript: [...a.transcript.slice(0, -1), { ...last, text: last.text + text }] };
  }
  return push(a, { ts, kind: 'text', phase, textKind, text });
}

/** A tool call that has not finished: running, or held for approval. */
export const unfinished = (tool: ToolActivity | null): boolean =>
  tool?.state === 'running' || tool?.state === 'awaiting-approval';

/** Updates the transcript entry of tool call `callId` (the latest one with that id). */
export function patchToolEntry(
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
export const patchTool = (a: AgentView, callId: string, patch: Partial<ToolActivity>): AgentView =>
  a.tool && a.tool.callId === callId ? { ...a, tool: { ...a.tool, ...patch } } : a;

/**
 * Drops the pending approvals a run can no longer answer: those of `agentId` (its turn or
 * presentation ended, so its held calls were abandoned), or all of them (`null`: the run ended).
 */
export function dropApprovals(state: ViewState, agentId: string | null): ViewState {
  const approvals =
    agentId === null ? [] : state.approvals.filter((approval) => approval.agentId !== agentId);
  return approvals.length === state.approvals.length ? state : { ...state, approvals };
}

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
