import { randomBytes } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { writeFileAtomic } from './atomic-write.js';
import { safePathSegment } from './paths.js';
import {
  agentTotalsDocument,
  describeIssues,
  fromSnakeUsage,
  SESSION_FILES,
  SessionDocumentSchema,
  TURN_DIR,
  turnDirName,
  TurnMetadataSchema,
  type SessionDocument,
  type TurnMetadataDocument,
} from './session-documents.js';
import { SessionCorruptError, SessionNotFoundError } from './session-errors.js';
import { formatSessionSummary } from './session-summary.js';
import type {
  Session,
  SessionHistoryTurn,
  SessionList,
  SessionListing,
  SessionMeta,
  SessionProblem,
  StoredTurn,
  TurnRecord,
} from './session-types.js';
import { errorCode } from '../util/guards.js';
import { systemClock } from '../util/clock.js';

/**
 * The multi-turn session store. A session is one folder under `<cwd>/.massgen/sessions/`:
 *
 * ```
 * <session id>/                 e.g. session_20261122_101500_ab12
 *   session.json                id, created/updated (ISO), config source, agents, turn count
 *   summary.md                  every turn's question, winner and answer; rewritten after each turn
 *   turn_<n>/                   n = 1, 2, …
 *     answer.txt                the final answer (absent when the turn has none)
 *     metadata.json             question, winner and label, status, exit code, times, usage and cost
 *                               per agent and in total, the run's log folder
 *     workspace/                the winner's workspace, copied here when the turn had one
 * ```
 *
 * Nothing is ever half-written: a session folder and each turn folder are assembled under a
 * `.tmp-…` name and renamed into place whole; `session.json` and `summary.md` are replaced
 * atomically. Readers ignore `.tmp-…` entries and validate everything they read with zod.
 */

export { SessionCorruptError, SessionNotFoundError } from './session-errors.js';
export type * from './session-types.js';

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const TMP_PREFIX = '.tmp-';

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** A fresh session id: `session_<YYYYMMDD>_<HHMMSS>_<4 hex>` in local time. */
export function newSessionId(date: Date = new Date()): string {
  const day = `${pad(date.getFullYear(), 4)}${pad(date.getMonth() + 1)}${pad(date.getDate())}`;
  const time = `${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`;
  return `session_${day}_${time}_${randomBytes(2).toString('hex')}`;
}

/** `<cwd>/.massgen/sessions` */
export function sessionsRoot(cwd: string): string {
  return path.join(path.resolve(cwd), '.massgen', 'sessions');
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const tmpName = (what: string): string =>
  `${TMP_PREFIX}${what}-${process.pid}-${randomBytes(4).toString('hex')}`;

/** A rename that failed because the target folder is already there. */
const targetTaken = (error: unknown): boolean => {
  const code = errorCode(error);
  return code === 'EEXIST' || code === 'ENOTEMPTY' || code === 'EPERM' || code === 'EISDIR';
};

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

function sessionDocument(session: Omit<Session, 'history' | 'dir'>): SessionDocument {
  return {
    id: session.id,
    created_at: session.createdAt,
    updated_at: session.updatedAt,
    config_source: session.configSource,
    agents: session.agents.map((a) => ({ id: a.id, backend: a.backend, model: a.model })),
    turn_count: session.turns.length,
  };
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/**
 * Creates a new, empty session folder under `root` (created as needed) and returns it.
 * The folder appears whole: `session.json` and `summary.md` are written before it is renamed into place.
 */
export async function createSession(root: string, meta: SessionMeta): Promise<Session> {
  const rootDir = path.resolve(root);
  if (meta.id !== undefined && !SESSION_ID.test(meta.id)) throw new Error(`invalid session id "${meta.id}"`);
  await mkdir(rootDir, { recursive: true });
  const createdAt = meta.createdAt ?? new Date((meta.clock ?? systemClock).now());
  const created = createdAt.toISOString();
  const tmp = path.join(rootDir, tmpName('session'));
  await mkdir(tmp);
  try {
    for (let attempt = 0; ; attempt++) {
      const id = meta.id ?? newSessionId(createdAt);
      const session: Session = {
        id,
        dir: path.join(rootDir, id),
        createdAt: created,
        updatedAt: created,
        configSource: meta.configSource,
        agents: (meta.agents ?? []).map((a) => ({ id: a.id, backend: a.backend, model: a.model })),
        turns: [],
        history: [],
      };
      await writeFile(path.join(tmp, SESSION_FILES.session), json(sessionDocument(session)), 'utf8');
      await writeFile(path.join(tmp, SESSION_FILES.summary), formatSessionSummary(session), 'utf8');
      try {
        await rename(tmp, session.dir);
        return session;
      } catch (error) {
        if (!targetTaken(error) || meta.id !== undefined || attempt >= 20) {
          throw meta.id !== undefined && targetTaken(error)
            ? new Error(`session ${meta.id} already exists in ${rootDir}`)
            : error;
        }
      }
    }
  } catch (error) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

function turnMetadata(index: number, record: TurnRecord, hasWorkspace: boolean): TurnMetadataDocument {
  return {
    turn: index,
    question: record.question,
    status: record.status,
    exit_code: record.exitCode,
    winner: record.winnerId,
    winner_label: record.winnerLabel,
    answer_file: record.answer === null ? null : SESSION_FILES.answer,
    run_id: record.runId ?? null,
    started_at: record.startedAt,
    finished_at: record.finishedAt,
    duration_seconds: Math.round(Math.max(0, record.durationMs)) / 1000,
    ...agentTotalsDocument(record.usage, record.costUsd),
    log_dir: record.logDir,
    error: record.error ?? null,
    workspace: hasWorkspace ? SESSION_FILES.workspace : null,
  };
}

/**
 * Records a finished turn as `turn_<n>/` (the next free `n`), then rewrites `session.json` and
 * `summary.md`. Returns the session as now stored (re-read from disk, so turns appended meanwhile by
 * another process are included).
 */
export async function appendTurn(session: Pick<Session, 'dir'>, record: TurnRecord): Promise<Session> {
  const dir = path.resolve(session.dir);
  const current = await readSessionDir(dir, { answers: false });
  const tmp = path.join(dir, tmpName('turn'));
  await mkdir(tmp);
  try {
    let hasWorkspace = false;
    if (record.workspaceDir && (await exists(record.workspaceDir))) {
      await cp(record.workspaceDir, path.join(tmp, SESSION_FILES.workspace), { recursive: true });
      hasWorkspace = true;
    }
    if (record.answer !== null) await writeFile(path.join(tmp, SESSION_FILES.answer), record.answer, 'utf8');
    let index = (current.turns.at(-1)?.index ?? 0) + 1;
    for (let attempt = 0; ; attempt++, index++) {
      await writeFile(
        path.join(tmp, SESSION_FILES.turnMetadata),
        json(turnMetadata(index, record, hasWorkspace)),
        'utf8',
      );
      try {
        await rename(tmp, path.join(dir, turnDirName(index)));
        break;
      } catch (error) {
        if (!targetTaken(error) || attempt >= 100) throw error;
      }
    }
  } catch (error) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
  const stored = await readSessionDir(dir, { answers: true });
  const updated: Session = { ...stored, updatedAt: laterIso(stored.updatedAt, record.finishedAt) };
  await writeFileAtomic(path.join(dir, SESSION_FILES.session), json(sessionDocument(updated)));
  await writeFileAtomic(path.join(dir, SESSION_FILES.summary), formatSessionSummary(updated));
  return updated;
}

const laterIso = (a: string, b: string): string => (Date.parse(b) > Date.parse(a) ? b : a);

async function readJsonFile<T>(file: string, schema: z.ZodType<T>): Promise<T> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new SessionCorruptError(file, errorCode(error) === 'ENOENT' ? 'missing' : messageOf(error), {
      cause: error,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SessionCorruptError(file, `invalid JSON (${messageOf(error)})`, { cause: error });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new SessionCorruptError(file, describeIssues(parsed.error));
  return parsed.data;
}

async function readTurn(dir: string, index: number, answers: boolean): Promise<StoredTurn> {
  const meta = await readJsonFile(path.join(dir, SESSION_FILES.turnMetadata), TurnMetadataSchema);
  let answer: string | null = null;
  if (meta.answer_file !== null) {
    const file = path.join(dir, safePathSegment(meta.answer_file));
    try {
      // Listings only need to know an answer exists; its text is read for full loads.
      answer = answers ? await readFile(file, 'utf8') : '';
      if (!answers) await stat(file);
    } catch (error) {
      throw new SessionCorruptError(file, errorCode(error) === 'ENOENT' ? 'missing' : messageOf(error), {
        cause: error,
      });
    }
  }
  return {
    index,
    dir,
    question: meta.question,
    answer,
    winnerId: meta.winner,
    winnerLabel: meta.winner_label,
    status: meta.status,
    exitCode: meta.exit_code,
    startedAt: meta.started_at,
    finishedAt: meta.finished_at,
    durationMs: Math.round(meta.duration_seconds * 1000),
    usage: Object.fromEntries(Object.entries(meta.agents).map(([id, a]) => [id, fromSnakeUsage(a.usage)])),
    costUsd: Object.fromEntries(Object.entries(meta.agents).map(([id, a]) => [id, a.cost_usd])),
    logDir: meta.log_dir,
    runId: meta.run_id,
    error: meta.error,
    workspaceDir: meta.workspace === null ? null : path.join(dir, safePathSegment(meta.workspace)),
  };
}

/** The turns that have a final answer, as history for the next question. */
export function sessionHistory(turns: readonly StoredTurn[]): SessionHistoryTurn[] {
  return turns.flatMap((turn) =>
    turn.answer !== null && turn.answer.trim() !== ''
      ? [{ question: turn.question, answer: turn.answer }]
      : [],
  );
}

/** Reads a session folder; throws {@link SessionCorruptError} when anything in it is invalid. */
async function readSessionDir(dir: string, options: { answers: boolean }): Promise<Session> {
  const doc = await readJsonFile(path.join(dir, SESSION_FILES.session), SessionDocumentSchema);
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    throw new SessionCorruptError(dir, messageOf(error), { cause: error });
  }
  const indexes = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => TURN_DIR.exec(entry.name)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  const turns: StoredTurn[] = [];
  for (const index of indexes)
    turns.push(await readTurn(path.join(dir, turnDirName(index)), index, options.answers));
  // A crash between a turn's rename and the session.json rewrite leaves session.json behind: the
  // turn folders are the truth.
  const lastFinished = turns.reduce((latest, turn) => laterIso(latest, turn.finishedAt), doc.updated_at);
  return {
    id: path.basename(dir),
    dir,
    createdAt: doc.created_at,
    updatedAt: lastFinished,
    configSource: doc.config_source,
    agents: doc.agents,
    turns,
    history: options.answers ? sessionHistory(turns) : [],
  };
}

/**
 * Every session under `root`, newest first. A folder that cannot be read (missing or invalid
 * `session.json`, a broken turn) is reported in `problems` and skipped; a missing `root` is no sessions.
 */
export async function listSessions(root: string): Promise<SessionList> {
  const rootDir = path.resolve(root);
  let entries;
  try {
    entries = await readdir(rootDir, { withFileTypes: true });
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { sessions: [], problems: [] };
    return { sessions: [], problems: [{ path: rootDir, message: messageOf(error) }] };
  }
  const sessions: SessionListing[] = [];
  const problems: SessionProblem[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const dir = path.join(rootDir, entry.name);
    try {
      const session = await readSessionDir(dir, { answers: false });
      sessions.push({
        id: session.id,
        dir,
        createdAt: session.createdAt,
        updatedAt: session.updatedAt,
        configSource: session.configSource,
        agents: session.agents,
        turnCount: session.turns.length,
        firstQuestion: session.turns[0]?.question ?? null,
      });
    } catch (error) {
      problems.push({
        path: error instanceof SessionCorruptError ? error.path : dir,
        message: error instanceof SessionCorruptError ? error.message : messageOf(error),
      });
    }
  }
  sessions.sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt) || b.id.localeCompare(a.id));
  problems.sort((a, b) => a.path.localeCompare(b.path));
  return { sessions, problems };
}

/**
 * Loads one session with all its turns and its history.
 * @throws {SessionNotFoundError} for an unknown id (listing the known ones);
 *   {@link SessionCorruptError} when the folder exists but cannot be read.
 */
export async function loadSession(root: string, id: string): Promise<Session> {
  const rootDir = path.resolve(root);
  const dir = path.join(rootDir, id);
  const found =
    SESSION_ID.test(id) &&
    (await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    ));
  if (!found) {
    const { sessions } = await listSessions(rootDir);
    throw new SessionNotFoundError(
      id,
      rootDir,
      sessions.map((s) => s.id),
    );
  }
  return readSessionDir(dir, { answers: true });
}

/** The most recently updated readable session under `root`, or null when there is none. */
export async function latestSession(root: string): Promise<Session | null> {
  const { sessions } = await listSessions(root);
  const newest = sessions[0];
  return newest ? loadSession(root, newest.id) : null;
}
