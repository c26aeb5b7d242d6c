import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { listSessions, sessionsRoot } from '../../app/index.js';
import { RunEventSchema, type RunEvent } from '../../types/events.js';
import type { PastRun, PastSession } from '../../types/web-api.js';

export type { PastRun, PastSession } from '../../types/web-api.js';

const LOG_DIR = /^log_\d{8}_\d{6}_\d{6}(?:_\d+)?$/;

/** The log root of a working directory. */
export const logRootOf = (cwd: string): string => path.join(cwd, '.massgen', 'massgen_logs');

/** Past runs, newest first, from their `status.json` (folders without one are skipped). */
export async function listPastRuns(cwd: string): Promise<PastRun[]> {
  const root = logRootOf(cwd);
  let names: string[];
  try {
    names = (await readdir(root)).filter((n) => LOG_DIR.test(n));
  } catch {
    return [];
  }
  const runs = await Promise.all(
    names.map(async (id): Promise<PastRun | null> => {
      try {
        const status = JSON.parse(await readFile(path.join(root, id, 'status.json'), 'utf8')) as {
          question?: string;
          started_at?: string;
          final?: { status?: string };
          coordination?: { winner?: string | null };
        };
        return {
          id,
          question: status.question ?? '',
          status: status.final?.status ?? null,
          startedAt: status.started_at ?? null,
          winner: status.coordination?.winner ?? null,
        };
      } catch {
        return null;
      }
    }),
  );
  return runs.filter((r): r is PastRun => r !== null).sort((a, b) => b.id.localeCompare(a.id));
}

/** The log folder of a past run, or null for a name that is not one (no path tricks). */
export function pastRunDir(cwd: string, id: string): string | null {
  return LOG_DIR.test(id) ? path.join(logRootOf(cwd), id) : null;
}

/**
 * The events of a past run: `events.jsonl` (every complete line that parses), else
 * `coordination_events.json`. Null when the run has neither.
 */
export async function readPastEvents(dir: string): Promise<RunEvent[] | null> {
  try {
    const text = await readFile(path.join(dir, 'events.jsonl'), 'utf8');
    const events: RunEvent[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const parsed = RunEventSchema.safeParse(JSON.parse(line));
        if (parsed.success) events.push(parsed.data);
      } catch {
        // A line cut short by a crash: the rest of the run is still worth replaying.
      }
    }
    return events;
  } catch {
    try {
      const parsed = RunEventSchema.array().safeParse(
        JSON.parse(await readFile(path.join(dir, 'coordination_events.json'), 'utf8')),
      );
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }
}

/** Saved sessions, most recently updated first. */
export async function listPastSessions(cwd: string): Promise<PastSession[]> {
  const { sessions } = await listSessions(sessionsRoot(cwd));
  return sessions
    .map((s) => ({
      id: s.id,
      firstQuestion: s.firstQuestion,
      turnCount: s.turnCount,
      updatedAt: s.updatedAt,
    }))
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}
