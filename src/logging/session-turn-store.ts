import { cp, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import {
  agentTotalsDocument,
  SESSION_FILES,
  turnDirName,
  type TurnMetadataDocument,
} from './session-documents.js';
import { exists, json, laterIso, sessionDocument, targetTaken, tmpName } from './session-fs.js';
import { readSessionDir } from './session-read.js';
import { formatSessionSummary } from './session-summary.js';
import { thisProcess } from './turn-process.js';
import type { Session, StartedTurnRecord, TurnRecord } from './session-types.js';

// Writing turns into a session folder: whole (appendTurn), or at their start and then finished
// (startTurn, finishTurn).

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
    unfinished: false,
    process: null,
  };
}

/** The metadata of a turn that has started and not finished (yet). */
function startedMetadata(index: number, record: StartedTurnRecord): TurnMetadataDocument {
  return {
    ...turnMetadata(
      index,
      {
        question: record.question,
        answer: null,
        winnerId: null,
        winnerLabel: null,
        // What a killed process leaves: said as a failure, with why, until the turn is finished.
        status: 'failed',
        exitCode: 1,
        startedAt: record.startedAt,
        finishedAt: record.startedAt,
        durationMs: 0,
        usage: {},
        costUsd: {},
        logDir: record.logDir,
        error: { code: 'unfinished', message: 'the process ended while this turn ran' },
      },
      false,
    ),
    unfinished: true,
    process: record.process ?? thisProcess(),
  };
}

/** Files a turn folder gets besides its metadata; says whether the workspace was copied. */
async function writeTurnFiles(target: string, record: TurnRecord): Promise<boolean> {
  let hasWorkspace = false;
  if (record.workspaceDir && (await exists(record.workspaceDir))) {
    await cp(record.workspaceDir, path.join(target, SESSION_FILES.workspace), { recursive: true });
    hasWorkspace = true;
  }
  if (record.answer !== null) await writeFile(path.join(target, SESSION_FILES.answer), record.answer, 'utf8');
  return hasWorkspace;
}

/** Places a new `turn_<n>/` (the next free `n`) assembled in a temporary folder; returns `n`. */
async function placeTurn(
  dir: string,
  fill: (tmp: string) => Promise<(index: number) => TurnMetadataDocument>,
): Promise<number> {
  const current = await readSessionDir(dir, { answers: false });
  const tmp = path.join(dir, tmpName('turn'));
  await mkdir(tmp);
  try {
    const metadata = await fill(tmp);
    let index = (current.turns.at(-1)?.index ?? 0) + 1;
    for (let attempt = 0; ; attempt++, index++) {
      await writeFile(path.join(tmp, SESSION_FILES.turnMetadata), json(metadata(index)), 'utf8');
      try {
        await rename(tmp, path.join(dir, turnDirName(index)));
        return index;
      } catch (error) {
        if (!targetTaken(error) || attempt >= 100) throw error;
      }
    }
  } catch (error) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

/** Rewrites `session.json` and `summary.md` from the turn folders; returns the session as stored. */
async function rewriteSession(dir: string, finishedAt: string): Promise<Session> {
  const stored = await readSessionDir(dir, { answers: true });
  const updated: Session = { ...stored, updatedAt: laterIso(stored.updatedAt, finishedAt) };
  await writeFileAtomic(path.join(dir, SESSION_FILES.session), json(sessionDocument(updated)));
  await writeFileAtomic(path.join(dir, SESSION_FILES.summary), formatSessionSummary(updated));
  return updated;
}

/**
 * Records a finished turn as `turn_<n>/` (the next free `n`), then rewrites `session.json` and
 * `summary.md`. Returns the session as now stored (re-read from disk, so turns appended meanwhile by
 * another process are included).
 */
export async function appendTurn(session: Pick<Session, 'dir'>, record: TurnRecord): Promise<Session> {
  const dir = path.resolve(session.dir);
  await placeTurn(dir, async (tmp) => {
    const hasWorkspace = await writeTurnFiles(tmp, record);
    return (index) => turnMetadata(index, record, hasWorkspace);
  });
  return rewriteSession(dir, record.finishedAt);
}

/**
 * Records a turn as it starts (`turn_<n>/` marked `unfinished`, with its log folder), so a process
 * killed mid-turn still leaves the turn where `--continue` finds it. {@link finishTurn} completes it.
 */
export async function startTurn(
  session: Pick<Session, 'dir'>,
  record: StartedTurnRecord,
): Promise<{ session: Session; index: number }> {
  const dir = path.resolve(session.dir);
  const index = await placeTurn(dir, async () => (n) => startedMetadata(n, record));
  return { session: await rewriteSession(dir, record.startedAt), index };
}

/**
 * Completes a turn {@link startTurn} recorded: its answer and workspace are written first, then its
 * metadata is replaced atomically (that replacement is the moment it counts as finished).
 */
export async function finishTurn(
  session: Pick<Session, 'dir'>,
  index: number,
  record: TurnRecord,
): Promise<Session> {
  const dir = path.resolve(session.dir);
  const target = path.join(dir, turnDirName(index));
  await rm(path.join(target, SESSION_FILES.workspace), { recursive: true, force: true });
  const hasWorkspace = await writeTurnFiles(target, record);
  await writeFileAtomic(
    path.join(target, SESSION_FILES.turnMetadata),
    json(turnMetadata(index, record, hasWorkspace)),
  );
  return rewriteSession(dir, record.finishedAt);
}
