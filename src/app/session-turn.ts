import path from 'node:path';
import type { HistoryTurn } from '../coordination/index.js';
import {
  appendTurn,
  createSession,
  finishTurn,
  startTurn,
  stillRunningProcess,
  sessionsRoot as defaultSessionsRoot,
  type Session,
  type SessionMeta,
  type TurnRecord,
} from '../logging/session-store.js';
import { describeError, exitCodeForError, MassGenError } from '../types/errors.js';
import type { ErrorInfo, RunEvent } from '../types/events.js';
import type { RunResult } from '../types/run-result.js';
import { systemClock } from '../util/clock.js';
import { prepareRun, type MassGenOptions, type PreparedRun } from './run-massgen.js';

/** What the caller supplies for one turn on top of the question. */
export interface TurnHooks {
  /** Cancels this turn only. */
  signal?: AbortSignal;
  /** Files attached to this turn's question (the web UI's uploads), as {@link MassGenOptions.attachments}. */
  attachments?: MassGenOptions['attachments'];
  /** Every event of the turn, in order (render it). */
  onEvent?: (event: RunEvent) => void;
  /** The prepared run, before it starts: keep it for a synchronous log flush on a hard exit. */
  onPrepared?: (run: PreparedRun) => void;
  /**
   * false: a turn that could not start (`prepareError`: a bad config, a missing key) is neither stored
   * nor counted — the web UI reports it instead, leaving no session behind. Default true.
   */
  recordFailedStart?: boolean;
}

/** Options of {@link runSessionTurn}. */
export interface RunSessionTurnOptions
  extends Omit<MassGenOptions, 'question' | 'history' | 'signal' | 'onEvent' | 'attachments'>, TurnHooks {
  question: string;
  /** The session the turn belongs to; null: create one (from `newSession`) when the turn is stored. */
  session: Session | null;
  /** Used when `session` is null. Default: a fresh id and `configSource: 'config object'`. */
  newSession?: SessionMeta;
  /** Earlier turns the agents see. Default: `session.history`. */
  history?: readonly HistoryTurn[];
  /** Folder holding the sessions. Default: `<cwd>/.massgen/sessions`. */
  sessionsRoot?: string;
  /** false: nothing is written to the session store (the turn still runs). Default true. */
  persist?: boolean;
}

/** What one turn of a session produced. */
export interface SessionTurnOutcome {
  result: RunResult;
  /** The turn as recorded (or as it would have been, when storing failed or was off). */
  record: TurnRecord;
  /** The session as stored after the turn, or the one passed in when nothing was stored. */
  session: Session | null;
  /** `turn_<n>/` of the stored turn, or null. */
  turnDir: string | null;
  /** Agents whose model has a known price (from the run's start), or null when the run never started. */
  pricedAgents: string[] | null;
  /** Why the run could not even start (a config problem, a failed model download…), else null. */
  prepareError: unknown;
  /** Why the finished turn could not be stored, else null. The session is still usable. */
  storeError: Error | null;
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

function errorInfo(error: unknown): ErrorInfo {
  return {
    code: error instanceof MassGenError ? error.code : 'run_failed',
    message: describeError(error),
  };
}

/** The stored workspace of the session's latest turn that has one. */
function lastWorkspace(session: Session | null | undefined): string | null {
  const turns = session?.turns ?? [];
  for (let i = turns.length - 1; i >= 0; i--) {
    const dir = turns[i]?.workspaceDir;
    if (dir) return dir;
  }
  return null;
}

/**
 * The log folder of the session's latest turn: its subagents' checkpoints are picked up from there —
 * unless that turn is still running in another process on this host, which keeps its subagents (taking
 * them over would start them a second time).
 */
function lastLogDir(session: Session | null | undefined): string | null {
  const last = session?.turns.at(-1);
  if (!last || stillRunningProcess(last) !== null) return null;
  return last.logDir;
}

/**
 * Runs one question as the next turn of a session: the earlier turns (questions and final answers) go
 * to the agents as history, every event reaches `onEvent`, and the turn is then recorded in the
 * session store — failed and cancelled turns too (with their status), so the session goes on.
 * Never rejects: problems come back in the outcome.
 */
export async function runSessionTurn(options: RunSessionTurnOptions): Promise<SessionTurnOutcome> {
  const {
    session,
    newSession,
    history,
    sessionsRoot,
    persist = true,
    onEvent,
    onPrepared,
    signal,
    recordFailedStart = true,
    ...runOptions
  } = options;
  const cwd = path.resolve(runOptions.cwd ?? process.cwd());
  const clock = runOptions.clock ?? systemClock;
  const startedAt = new Date(clock.now());
  let winnerLabel: string | null = null;
  let presentedLabel: string | null = null;
  let costUsd: Record<string, number> = {};
  let pricedAgents: string[] | null = null;
  const observe = (event: RunEvent): void => {
    if (event.type === 'run.started')
      pricedAgents = event.agents.filter((a) => a.price).map((a) => a.agentId);
    else if (event.type === 'coordination.finished') winnerLabel = event.winnerLabel;
    else if (event.type === 'presentation.finished') presentedLabel = event.label;
    else if (event.type === 'run.finished') costUsd = { ...event.costUsd };
    onEvent?.(event);
  };

  const root = sessionsRoot ?? defaultSessionsRoot(cwd);
  let into: Session | null = session;
  const target = async (): Promise<Session> =>
    (into ??= await createSession(root, {
      ...(newSession ?? { configSource: 'config object' }),
      clock,
    }));
  /** The turn as recorded at its start (null when that failed or storing is off: it is appended at the end). */
  let started: { session: Session; index: number } | null = null;

  let result: RunResult;
  let prepareError: unknown = null;
  try {
    const prepared = await prepareRun({
      ...runOptions,
      cwd,
      history: history ?? session?.history ?? [],
      // The previous winner's files stay visible, read-only, to every agent of the next turn.
      previousWorkspace: runOptions.previousWorkspace ?? lastWorkspace(session),
      previousLogDir: runOptions.previousLogDir ?? lastLogDir(session),
      onEvent: observe,
      ...(signal ? { signal } : {}),
    });
    onPrepared?.(prepared);
    if (persist) {
      // In the store from its start: a process killed mid-turn leaves it for `--continue` to find.
      started = await target()
        .then((into) =>
          startTurn(into, {
            question: options.question,
            startedAt: startedAt.toISOString(),
            logDir: prepared.logDir,
          }),
        )
        .catch(() => null);
    }
    try {
      for await (const _event of prepared.stream()) {
        // Events reach `observe` (and the log writer) inside the stream.
      }
    } catch {
      // The stream ends with run.finished even when a consumer-side step threw; the result says how.
    }
    result = await prepared.result;
  } catch (error) {
    prepareError = error;
    const exitCode = exitCodeForError(error);
    result = {
      runId: 'unknown',
      question: options.question,
      status: exitCode === 130 ? 'cancelled' : 'failed',
      exitCode,
      winnerId: null,
      finalAnswer: null,
      durationMs: clock.now() - startedAt.getTime(),
      usage: {},
      logDir: null,
      answerFile: null,
      workspaceDir: null,
      error: errorInfo(error),
    };
  }

  const finishedAt = new Date(clock.now());
  const record: TurnRecord = {
    question: options.question,
    answer: result.finalAnswer,
    winnerId: result.winnerId,
    winnerLabel: result.winnerId === null ? null : (winnerLabel ?? presentedLabel),
    status: result.status,
    exitCode: result.exitCode,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    usage: result.usage,
    costUsd,
    logDir: result.logDir,
    workspaceDir: result.workspaceDir,
    runId: result.runId === 'unknown' ? null : result.runId,
    error: result.error ?? null,
  };

  let stored: Session | null = started?.session ?? session;
  let turnDir: string | null = null;
  let storeError: Error | null = null;
  if (persist && (recordFailedStart || prepareError === null)) {
    try {
      if (started) {
        stored = await finishTurn(started.session, started.index, record);
        const index = started.index;
        turnDir = stored.turns.find((t) => t.index === index)?.dir ?? null;
      } else {
        stored = await appendTurn(await target(), record);
        turnDir = stored.turns.at(-1)?.dir ?? null;
      }
    } catch (error) {
      storeError = asError(error);
    }
  }
  return { result, record, session: stored, turnDir, pricedAgents, prepareError, storeError };
}
