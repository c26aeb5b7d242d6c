import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SESSION_FILES } from './session-documents.js';
import { SessionCorruptError, SessionNotFoundError } from './session-errors.js';
import { json, messageOf, sessionDocument, targetTaken, tmpName } from './session-fs.js';
import { readSessionDir } from './session-read.js';
import { formatSessionSummary } from './session-summary.js';
import type { Session, SessionList, SessionListing, SessionMeta, SessionProblem } from './session-types.js';
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
 *                               per agent and in total, the run's log folder; `unfinished: true`
 *                               from the turn's start until it is finished (a turn whose process
 *                               was killed stays so, and `--continue` says it), with the
 *                               `process` (pid, hostname) running it
 *     workspace/                the winner's workspace, copied here when the turn had one
 * ```
 *
 * Nothing is ever half-written: a session folder and each turn folder are assembled under a
 * `.tmp-…` name and renamed into place whole; `session.json` and `summary.md` are replaced
 * atomically. Readers ignore `.tmp-…` entries and validate everything they read with zod.
 */

export { SessionCorruptError, SessionNotFoundError } from './session-errors.js';
export type * from './session-types.js';
export { sessionHistory } from './session-read.js';
export { appendTurn, finishTurn, startTurn } from './session-turn-store.js';
export { stillRunningProcess } from './turn-process.js';

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

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
