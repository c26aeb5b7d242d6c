import path from 'node:path';
import { loadConfigFile, loadDotEnv, maskSecrets, parseConfig, type MassGenConfig } from '../config/index.js';
import type { AgentSpec, HistoryTurn } from '../coordination/index.js';
import {
  appendTurn,
  createSession,
  newSessionId,
  sessionsRoot as defaultSessionsRoot,
  type Session,
  type SessionAgent,
  type SessionMeta,
  type TurnRecord,
} from '../logging/session-store.js';
import { describeError, exitCodeForError, MassGenError } from '../types/errors.js';
import type { ErrorInfo, RunEvent } from '../types/events.js';
import type { RunResult } from '../types/run-result.js';
import { addUsage, emptyUsage, type TokenUsage } from '../types/usage.js';
import { systemClock } from '../util/clock.js';
import { modelLabel, secretValues, type Env } from './build-agents.js';
import { prepareRun, type MassGenOptions, type PreparedRun } from './run-massgen.js';

export {
  appendTurn,
  createSession,
  latestSession,
  listSessions,
  loadSession,
  newSessionId,
  sessionHistory,
  sessionsRoot,
  SessionCorruptError,
  SessionNotFoundError,
  type Session,
  type SessionAgent,
  type SessionList,
  type SessionListing,
  type SessionMeta,
  type SessionProblem,
  type StoredTurn,
  type TurnRecord,
} from '../logging/session-store.js';
export type { AgentSpec, HistoryTurn } from '../coordination/index.js';

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

  let result: RunResult;
  let prepareError: unknown = null;
  try {
    const prepared = await prepareRun({
      ...runOptions,
      cwd,
      history: history ?? session?.history ?? [],
      // The previous winner's files stay visible, read-only, to every agent of the next turn.
      previousWorkspace: runOptions.previousWorkspace ?? lastWorkspace(session),
      onEvent: observe,
      ...(signal ? { signal } : {}),
    });
    onPrepared?.(prepared);
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

  let stored: Session | null = session;
  let turnDir: string | null = null;
  let storeError: Error | null = null;
  if (persist && (recordFailedStart || prepareError === null)) {
    try {
      const root = sessionsRoot ?? defaultSessionsRoot(cwd);
      const target =
        session ??
        (await createSession(root, { ...(newSession ?? { configSource: 'config object' }), clock }));
      stored = await appendTurn(target, record);
      turnDir = stored.turns.at(-1)?.dir ?? null;
    } catch (error) {
      storeError = asError(error);
    }
  }
  return { result, record, session: stored, turnDir, pricedAgents, prepareError, storeError };
}

/** One turn of a session as the front end shows it. */
export interface SessionTurnSummary {
  index: number;
  question: string;
  answer: string | null;
  winnerId: string | null;
  winnerLabel: string | null;
  status: RunResult['status'];
  exitCode: number;
  durationMs: number;
  usage: Readonly<Record<string, TokenUsage>>;
  costUsd: Readonly<Record<string, number>>;
  error: ErrorInfo | null;
  logDir: string | null;
  /** `turn_<n>/` in the session store, or null when the turn was not stored. */
  dir: string | null;
}

/** What `/status` shows. */
export interface SessionStatus {
  sessionId: string;
  /** The session folder, or null until the first turn is stored. */
  sessionDir: string | null;
  agents: SessionAgent[];
  turnCount: number;
  /** Summed over every turn of the session, per agent and in total. */
  usage: Record<string, TokenUsage>;
  totalUsage: TokenUsage;
  costUsd: Record<string, number>;
  totalCostUsd: number;
  /** Agents of the latest run whose model has a known price; null before the first run here. */
  pricedAgents: string[] | null;
}

/** Options of {@link createSessionRunner}. */
export interface SessionRunnerOptions extends Omit<
  MassGenOptions,
  'question' | 'history' | 'signal' | 'onEvent' | 'config' | 'attachments'
> {
  config: MassGenOptions['config'];
  /** Where the agents came from, recorded in `session.json`. Default: the config file's absolute path, else `config object`. */
  configSource?: string;
  /** Continue this session: its turns are the history of the next question. */
  session?: Session | null;
  /** Folder holding the sessions. Default: `<cwd>/.massgen/sessions`. */
  sessionsRoot?: string;
  /** false: keep the session in memory only. Default true. */
  persist?: boolean;
}

/** A multi-turn session bound to one config: what the interactive front end drives. */
export interface SessionRunner {
  /** The validated config every turn uses. */
  readonly config: MassGenConfig;
  readonly configSource: string;
  /** The agents, as `id`, backend type and model. */
  readonly agents: readonly SessionAgent[];
  /** Where sessions are stored. */
  readonly sessionsRoot: string;
  /** The current session's id (its folder is created when the first turn is stored). */
  readonly sessionId: string;
  /** The stored session, or null before its first turn is stored. */
  readonly session: Session | null;
  readonly turns: readonly SessionTurnSummary[];
  /** The earlier turns with a final answer, as the agents will see them. */
  readonly history: readonly HistoryTurn[];
  status(): SessionStatus;
  /** The config with every secret masked (for `/config`). */
  maskedConfig(): unknown;
  /** Starts a new session (new id, no history) with the same agents. */
  clear(): void;
  /** Runs `question` as the next turn. Never rejects. */
  runTurn(question: string, hooks?: TurnHooks): Promise<SessionTurnOutcome>;
}

function resolveConfig(config: MassGenOptions['config'], env: Env, cwd: string): MassGenConfig {
  if (typeof config === 'string') return loadConfigFile(config, { env, cwd });
  if (Object.isFrozen(config) && Array.isArray((config as MassGenConfig).agents))
    return config as MassGenConfig;
  return parseConfig(config, { env, source: 'config object' });
}

function summaryOf(turn: Session['turns'][number]): SessionTurnSummary {
  return {
    index: turn.index,
    question: turn.question,
    answer: turn.answer,
    winnerId: turn.winnerId,
    winnerLabel: turn.winnerLabel,
    status: turn.status,
    exitCode: turn.exitCode,
    durationMs: turn.durationMs,
    usage: turn.usage,
    costUsd: turn.costUsd,
    error: turn.error,
    logDir: turn.logDir,
    dir: turn.dir,
  };
}

/**
 * Validates the config once and returns a runner for a session (new, or `options.session` resumed).
 * @throws a `ConfigError` for a bad config.
 */
export function createSessionRunner(options: SessionRunnerOptions): SessionRunner {
  const {
    config: input,
    configSource: source,
    session: resumed,
    sessionsRoot: root,
    persist,
    ...runOptions
  } = options;
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const env = options.env ?? loadDotEnv(cwd);
  const config = resolveConfig(input, env, cwd);
  const configSource = source ?? (typeof input === 'string' ? path.resolve(cwd, input) : 'config object');
  const agents: SessionAgent[] = options.agents
    ? options.agents.map((a: AgentSpec) => ({ id: a.id, backend: a.backend.type, model: a.backend.model }))
    : config.agents.map((a) => ({ id: a.id, backend: a.backend.type, model: modelLabel(a.backend) }));
  const storeRoot = path.resolve(root ?? defaultSessionsRoot(cwd));

  let session: Session | null = resumed ?? null;
  const now = (): Date => new Date((options.clock ?? systemClock).now());
  let sessionId = session?.id ?? newSessionId(now());
  let turns: SessionTurnSummary[] = session ? session.turns.map(summaryOf) : [];
  let pricedAgents: string[] | null = null;

  const history = (): HistoryTurn[] =>
    turns.flatMap((t) =>
      t.answer !== null && t.answer.trim() !== '' ? [{ question: t.question, answer: t.answer }] : [],
    );

  return {
    config,
    configSource,
    agents,
    sessionsRoot: storeRoot,
    get sessionId() {
      return sessionId;
    },
    get session() {
      return session;
    },
    get turns() {
      return turns;
    },
    get history() {
      return history();
    },
    status(): SessionStatus {
      const usage: Record<string, TokenUsage> = {};
      const costUsd: Record<string, number> = {};
      let totalUsage = emptyUsage();
      let totalCostUsd = 0;
      for (const turn of turns) {
        for (const [id, u] of Object.entries(turn.usage)) {
          usage[id] = addUsage(usage[id] ?? emptyUsage(), u);
          totalUsage = addUsage(totalUsage, u);
        }
        for (const [id, cost] of Object.entries(turn.costUsd)) {
          costUsd[id] = (costUsd[id] ?? 0) + cost;
          totalCostUsd += cost;
        }
      }
      return {
        sessionId,
        sessionDir: session?.dir ?? null,
        agents: [...agents],
        turnCount: turns.length,
        usage,
        totalUsage,
        costUsd,
        totalCostUsd,
        pricedAgents,
      };
    },
    maskedConfig: () => maskSecrets(config, secretValues(config, env)),
    clear() {
      session = null;
      sessionId = newSessionId(now());
      turns = [];
    },
    async runTurn(question: string, hooks: TurnHooks = {}): Promise<SessionTurnOutcome> {
      const id = sessionId;
      const outcome = await runSessionTurn({
        ...runOptions,
        ...hooks,
        config,
        cwd,
        env,
        question,
        session,
        newSession: { id, configSource, agents },
        history: history(),
        sessionsRoot: storeRoot,
        persist: persist ?? true,
      });
      if (outcome.pricedAgents) pricedAgents = outcome.pricedAgents;
      // A `clear()` while the turn ran started another session: this turn belongs to the old one.
      if (sessionId !== id) return outcome;
      if (outcome.prepareError !== null && hooks.recordFailedStart === false) return outcome;
      session = outcome.session;
      const stored = outcome.storeError === null ? outcome.session?.turns.at(-1) : undefined;
      const index = stored?.index ?? (turns.at(-1)?.index ?? 0) + 1;
      turns = [
        ...turns,
        stored
          ? summaryOf(stored)
          : {
              index,
              question,
              answer: outcome.record.answer,
              winnerId: outcome.record.winnerId,
              winnerLabel: outcome.record.winnerLabel,
              status: outcome.record.status,
              exitCode: outcome.record.exitCode,
              durationMs: outcome.record.durationMs,
              usage: outcome.record.usage,
              costUsd: outcome.record.costUsd,
              error: outcome.record.error ?? null,
              logDir: outcome.record.logDir,
              dir: null,
            },
      ];
      return outcome;
    },
  };
}
