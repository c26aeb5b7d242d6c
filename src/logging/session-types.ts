import type { ErrorInfo, RunStatus } from '../types/events.js';
import type { TokenUsage } from '../types/usage.js';
import type { Clock } from '../util/clock.js';

// The shapes of the multi-turn session store (`session-store.ts`), apart so that its readers and
// writers (`session-summary.ts`) share them without importing each other.

/** An agent as a session records it. */
export interface SessionAgent {
  id: string;
  backend: string;
  model: string;
}

/** What {@link createSession} records about a new session. */
export interface SessionMeta {
  /** Where the agents came from: a config file path, `--model gpt-4o`, `config object`, … */
  configSource: string;
  agents?: readonly SessionAgent[];
  /** Use this id (from {@link newSessionId}) instead of a fresh one; fails if it is taken. */
  id?: string;
  /** Defaults to the clock's now. */
  createdAt?: Date;
  /** Where "now" comes from when `createdAt` is not given. Default: the system clock. */
  clock?: Pick<Clock, 'now'>;
}

/** One finished turn, as {@link appendTurn} and {@link finishTurn} take it. */
export interface TurnRecord {
  question: string;
  /** The final answer, or null when the turn produced none (failed, cancelled, timed out). */
  answer: string | null;
  winnerId: string | null;
  /** The winning answer's label, e.g. `agent1.2`. */
  winnerLabel: string | null;
  status: RunStatus;
  exitCode: number;
  /** ISO timestamps. */
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  usage: Readonly<Record<string, TokenUsage>>;
  costUsd: Readonly<Record<string, number>>;
  /** The run's log folder, when logging was on. */
  logDir: string | null;
  runId?: string | null;
  error?: ErrorInfo | null;
  /** The winner's workspace folder; copied to `turn_<n>/workspace/` when given and present. */
  workspaceDir?: string | null;
}

/** A turn read back from a session folder. */
export interface StoredTurn extends Omit<TurnRecord, 'workspaceDir' | 'runId' | 'error'> {
  /** The `n` of `turn_<n>`. */
  index: number;
  dir: string;
  runId: string | null;
  error: ErrorInfo | null;
  /** Absolute path of the copied workspace, or null. */
  workspaceDir: string | null;
  /** Recorded at its start and never finished: its process ended while it ran (see {@link startTurn}). */
  unfinished: boolean;
  /** The process running an unfinished turn (recorded at its start), else null. */
  process: TurnProcess | null;
}

/** The process a turn runs in: `--continue` leaves a turn still running on this host to it. */
export interface TurnProcess {
  pid: number;
  hostname: string;
}

/** What is known of a turn when it starts, as {@link startTurn} takes it. */
export interface StartedTurnRecord {
  question: string;
  /** ISO timestamp. */
  startedAt: string;
  /** The run's log folder, when logging is on: what a later `--continue` picks up from. */
  logDir: string | null;
  /** The process running it. Default: this one. */
  process?: TurnProcess;
}

/** One earlier turn as the orchestrator takes it (the same shape as `HistoryTurn`). */
export interface SessionHistoryTurn {
  question: string;
  answer: string;
}

/** A session with all its turns. */
export interface Session {
  id: string;
  /** Absolute path of the session folder. */
  dir: string;
  /** ISO timestamps. */
  createdAt: string;
  updatedAt: string;
  configSource: string;
  agents: SessionAgent[];
  turns: StoredTurn[];
  /** The turns that have a final answer, as history for the next question. */
  history: SessionHistoryTurn[];
}

/** One line of {@link listSessions}. */
export interface SessionListing {
  id: string;
  dir: string;
  createdAt: string;
  updatedAt: string;
  configSource: string;
  agents: SessionAgent[];
  turnCount: number;
  firstQuestion: string | null;
}

/** A session folder that could not be read. */
export interface SessionProblem {
  path: string;
  message: string;
}

export interface SessionList {
  /** Newest first (by last update). */
  sessions: SessionListing[];
  /** Folders that were skipped because they are unreadable or invalid. */
  problems: SessionProblem[];
}
