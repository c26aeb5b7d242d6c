import type { ErrorInfo, Phase } from '../types/events.js';
import { initialRunState, type RunState } from '../types/run-state.js';

/** The shapes of the live view's state (see view-state.ts for the reducer). */

export type TextKind = 'text' | 'reasoning';

/** The last tool call of an agent, for its one-line activity display. */
export interface ToolActivity {
  callId: string;
  toolName: string;
  /** The arguments as one line of JSON. */
  args: string;
  /** A built-in tool the provider ran itself (web search, code execution). */
  providerExecuted: boolean;
  /**
   * `awaiting-approval`: held until someone approves it; `denied`: refused, never run; `deferred`:
   * planning mode only recorded it for the plan.
   */
  state: 'running' | 'awaiting-approval' | 'ok' | 'error' | 'denied' | 'deferred';
  durationMs: number | null;
}

/** Where a held tool call stands: waiting, or how it was answered. */
export type ApprovalState =
  { state: 'pending' } | { state: 'approved' } | { state: 'denied'; reason: string | null };

/** A tool call waiting for approval (`tool.approval.requested` not yet resolved). */
export interface PendingApproval {
  agentId: string;
  callId: string;
  toolName: string;
  phase: Phase;
  /** The arguments as one line of JSON. */
  args: string;
  seq: number;
  ts: number;
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
      /** Planning mode recorded the call for the plan instead of running it. */
      deferred: boolean;
      /** Null when the call was not held for approval. */
      approval: ApprovalState | null;
    }
  | { kind: 'mcp-ready'; server: string; tools: string[]; durationMs: number }
  | { kind: 'mcp-failed'; server: string; message: string; retryInSeconds: number | null }
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
  /** A message from the user reached this agent (`human.message.delivered`). */
  | { kind: 'human'; text: string; source: string; toAll: boolean }
);

/** What the agent is doing inside its current turn (refines `AgentState.status` for the badge). */
export type AgentActivity = 'idle' | 'thinking' | 'answering' | 'updated' | 'retrying' | 'voting';

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
  /** The agent's subagents, in the order spawned (docs/subagents.md): one panel line each. */
  subagents: SubagentView[];
}

/** One subagent as its parent's panel shows it. */
export interface SubagentView {
  id: string;
  task: string;
  state: 'running' | 'completed' | 'failed' | 'timeout' | 'cancelled';
  costUsd: number;
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
  | 'finished'
  | 'mcp-ready'
  | 'mcp-failed'
  | 'subagent'
  | 'warning'
  | 'planning'
  | 'approval'
  | 'approved'
  | 'denied'
  | 'human';

/** One significant event, for the coordination timeline. `agentId` is null for run-wide events. */
export interface TimelineEntry {
  seq: number;
  ts: number;
  agentId: string | null;
  kind: TimelineKind;
  text: string;
}

/** A message from the user (`human.message`), and the agents that have read it. */
export interface HumanMessageView {
  seq: number;
  ts: number;
  text: string;
  /** The agent it is for, or null for every agent. */
  target: string | null;
  source: string;
  deliveredTo: string[];
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
  /** Tool calls waiting for approval, oldest first (requested, not yet resolved or abandoned). */
  approvals: PendingApproval[];
  /** The user's messages the run accepted, oldest first. */
  messages: HumanMessageView[];
  /** Events applied so far. */
  eventCount: number;
}

export const initialViewState = (): ViewState => ({
  run: initialRunState(),
  agents: {},
  timeline: [],
  presentation: null,
  final: null,
  approvals: [],
  messages: [],
  eventCount: 0,
});
