import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { safePathSegment } from './paths.js';
import {
  fromSnakeUsage,
  SESSION_FILES,
  SessionDocumentSchema,
  TURN_DIR,
  turnDirName,
  TurnMetadataSchema,
  describeIssues,
} from './session-documents.js';
import { SessionCorruptError } from './session-errors.js';
import { laterIso, messageOf } from './session-fs.js';
import type { Session, SessionHistoryTurn, StoredTurn } from './session-types.js';
import { errorCode } from '../util/guards.js';

// Reading a session folder back, every file validated with zod.

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
    unfinished: meta.unfinished,
    process: meta.unfinished ? meta.process : null,
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
export async function readSessionDir(dir: string, options: { answers: boolean }): Promise<Session> {
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
