import path from 'node:path';
import { loadConfigFile, loadDotEnv, maskSecrets, parseConfig, type MassGenConfig } from '../config/index.js';
import type { AgentSpec, HistoryTurn } from '../coordination/index.js';
import {
  newSessionId,
  sessionsRoot as defaultSessionsRoot,
  type Session,
  type SessionAgent,
} from '../logging/session-store.js';
import type { ErrorInfo } from '../types/events.js';
import type { RunResult } from '../types/run-result.js';
import { addUsage, emptyUsage, type TokenUsage } from '../types/usage.js';
import { systemClock } from '../util/clock.js';
import { modelLabel, secretValues, type Env } from './build-agents.js';
import { runSessionTurn, type SessionTurnOutcome, type TurnHooks } from './session-turn.js';
import { type MassGenOptions } from './run-massgen.js';

export {
  appendTurn,
  createSession,
  latestSession,
  listSessions,
  loadSession,
  newSessionId,
  sessionHistory,
  sessionsRoot,
  stillRunningProcess,
  SessionCorruptError,
  SessionNotFoundError,
  type Session,
  type SessionAgent,
  type SessionList,
  type SessionListing,
  type SessionMeta,
  type SessionProblem,
  type StoredTurn,
  type TurnProcess,
  type TurnRecord,
} from '../logging/session-store.js';
export type { AgentSpec, HistoryTurn } from '../coordination/index.js';

export {
  runSessionTurn,
  type RunSessionTurnOptions,
  type SessionTurnOutcome,
  type TurnHooks,
} from './session-turn.js';

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
  /** Its process ended while it ran: it was recorded at its start and never finished. */
  unfinished: boolean;
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
    unfinished: turn.unfinished,
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
      const stored =
        outcome.storeError === null
          ? outcome.session?.turns.find((t) => t.dir === outcome.turnDir)
          : undefined;
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
              unfinished: false,
            },
      ];
      return outcome;
    },
  };
}
