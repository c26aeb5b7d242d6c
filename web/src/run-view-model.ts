import type { Task } from '../../src/types/agent-work-events.js';
import type { MediaRef } from '../../src/types/media.js';
import { initialRunState, type RunState } from '../../src/types/run-state.js';
import { initialPermissionsView, type PermissionsView } from './permissions-view.js';
import type { SubagentRun } from './subagent-runs.js';

/**
 * What the web page shows of one run: the shared projection (`RunState`, the same truth as
 * status.json and the terminal UI) plus what only a live view needs — streamed text per agent, tool
 * calls, the vote graph with struck-out votes, the timeline. `reduceRunView` (run-view.ts) builds it
 * from the events.
 */

/** One tool call of a turn, with its result once it came. */
export interface ToolCallView {
  callId: string;
  toolName: string;
  arguments: string;
  result: string | null;
  isError: boolean;
  waitingApproval: boolean;
  /** Media the tool returned or made (an image, a recording), by hash: shown from `/media`. */
  media?: MediaRef[];
}

/** What an agent wrote and called in one turn. */
export interface TurnView {
  turn: number;
  text: string;
  reasoning: string;
  tools: ToolCallView[];
  /** The user's messages this turn received (at a step boundary), by the message's seq. */
  received: { seq: number; text: string }[];
}

/** An agent's whole transcript, one entry per turn; the last is the current one. */
export interface AgentStream {
  agentId: string;
  turns: TurnView[];
}

/**
 * Why a vote no longer counts: a new answer `reset` it, the voter `superseded` it with a later vote,
 * or it was `stale` when cast (it named an answer the voter had not seen the latest of).
 */
export type StrikeReason = 'reset' | 'superseded' | 'stale';

/** An edge of the vote graph; `struck` says why it no longer counts (null while it does). */
export interface VoteEdge {
  voterId: string;
  targetId: string;
  label: string;
  reason: string;
  counted: boolean;
  struck: StrikeReason | null;
  /** `coordination_mode: decomposition`: the subtask this vote is for (one vote per subtask). */
  subtaskId?: string;
}

export interface TimelineItem {
  seq: number;
  ts: number;
  agentId: string | null;
  text: string;
  /** Set on a steering message's line: its seq in {@link RunView.messages}. */
  messageSeq?: number;
}

/** A message the user sent the agents while they worked, and which agents have received it. */
export interface HumanMessageView {
  seq: number;
  ts: number;
  text: string;
  /** One agent, or null for all of them. */
  target: string | null;
  source: string;
  /** Agents whose next step received it, in order. */
  deliveredTo: string[];
}

export interface PendingApproval {
  agentId: string;
  callId: string;
  toolName: string;
  arguments: string;
}

/** An agent's question to the human (`ask_others` with `broadcast: human`), until it is answered or times out. */
export interface OpenQuestion {
  questionId: string;
  agentId: string;
  question: string;
  deadline: number;
}

export interface RunView {
  run: RunState;
  /** The files the user attached to the question (`run.started.attachments`). */
  attachments: MediaRef[];
  streams: Record<string, AgentStream>;
  votes: VoteEdge[];
  timeline: TimelineItem[];
  approvals: PendingApproval[];
  /** The final answer as it streams, then as presented. */
  presentation: string;
  /** Steering messages, in order. */
  messages: HumanMessageView[];
  /** Set once "answer now" was asked for (the event's seq and who asked). */
  answerNow: { seq: number; source: string } | null;
  /** Counts events that may have changed files in the run's folders: the Files panel refreshes on it. */
  fileChanges: number;
  /** The permission ledger and the review of the winner's changes (permissions-view.ts). */
  permissions: PermissionsView;
  /** Subagents by the agent that spawned them, each with its own run view (subagent-runs.ts). */
  subagents: Record<string, SubagentRun<RunView>[]>;
  /** Each agent's task plan as it stands (`task_plan.changed`, docs/task-plans.md). */
  plans: Record<string, Task[]>;
  /** `ask_others` questions for the human still waiting for an answer (docs/ask-others.md). */
  questions: OpenQuestion[];
  lastSeq: number;
}

export const initialRunView = (): RunView => ({
  run: initialRunState(),
  attachments: [],
  streams: {},
  votes: [],
  timeline: [],
  approvals: [],
  presentation: '',
  messages: [],
  answerNow: null,
  fileChanges: 0,
  permissions: initialPermissionsView(),
  subagents: {},
  plans: {},
  questions: [],
  lastSeq: -1,
});
