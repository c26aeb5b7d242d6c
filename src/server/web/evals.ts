import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Hono } from 'hono';
import type { EvalsResponse, PastEval } from '../../types/web-api.js';

export type { PastEval } from '../../types/web-api.js';

/** Where `massgen --web` looks for evals: `.massgen/evals/*` and every folder directly in the project. */
export const EVAL_ROOTS = ['.massgen/evals', '.'] as const;

interface ReportFile {
  dataset?: string;
  config?: string;
  scorer?: string;
  summary?: { questions?: number; systems?: { kind?: string; accuracy?: number }[] };
}

async function readReport(dir: string): Promise<{ report: ReportFile; mtime: Date } | null> {
  const file = path.join(dir, 'eval-report.json');
  try {
    const [text, info] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
    const report = JSON.parse(text) as ReportFile;
    if (typeof report !== 'object' || report === null || !report.summary) return null;
    return { report, mtime: info.mtime };
  } catch {
    return null;
  }
}

/** The evals of a project, newest first. */
export async function listEvals(cwd: string): Promise<PastEval[]> {
  const found: PastEval[] = [];
  for (const root of EVAL_ROOTS) {
    let names: string[];
    try {
      names = (await readdir(path.join(cwd, root), { withFileTypes: true }))
        .filter(
          (d) => d.isDirectory() && !(root === '.' && d.name.startsWith('.')) && d.name !== 'node_modules',
        )
        .map((d) => d.name);
    } catch {
      continue;
    }
    for (const name of names) {
      const id = root === '.' ? name : `${root}/${name}`;
      const read = await readReport(path.join(cwd, id));
      if (!read) continue;
      const team = read.report.summary?.systems?.find((s) => s.kind === 'team');
      let hasChart = false;
      try {
        hasChart = (await stat(path.join(cwd, id, 'eval-chart.svg'))).isFile();
      } catch {
        // No chart: the table still shows.
      }
      found.push({
        id,
        dataset: String(read.report.dataset ?? ''),
        config: String(read.report.config ?? ''),
        scorer: String(read.report.scorer ?? ''),
        questions: read.report.summary?.questions ?? 0,
        teamAccuracy: typeof team?.accuracy === 'number' ? team.accuracy : null,
        writtenAt: read.mtime.toISOString(),
        hasChart,
      });
    }
  }
  return found.sort((a, b) => b.writtenAt.localeCompare(a.writtenAt));
}

/** The folder of a listed eval, or null: only ids {@link listEvals} returns are served (no path tricks). */
async function evalDir(cwd: string, id: string): Promise<string | null> {
  const listed = await listEvals(cwd);
  return listed.some((e) => e.id === id) ? path.join(cwd, id) : null;
}

/**
 * `GET /api/evals` (the list), `GET /api/evals/report?id=` (its `eval-report.json` without the
 * per-question answers) and `GET /api/evals/chart?id=` (its `eval-chart.svg` as an image: typed, never
 * sniffed, under a CSP sandbox — the page shows it in an `<img>`, never inline).
 */
export function registerEvalRoutes(app: Hono, cwd: string): void {
  app.get('/api/evals', async (c) => c.json((await listEvals(cwd)) satisfies EvalsResponse));
  app.get('/api/evals/report', async (c) => {
    const dir = await evalDir(cwd, c.req.query('id') ?? '');
    const read = dir ? await readReport(dir) : null;
    if (!read) return c.json({ error: 'no such eval' }, 404);
    const { questions: _questions, ...report } = read.report as ReportFile & { questions?: unknown };
    return c.json(report);
  });
  app.get('/api/evals/chart', async (c) => {
    const dir = await evalDir(cwd, c.req.query('id') ?? '');
    if (!dir) return c.json({ error: 'no such eval' }, 404);
    let svg: Buffer;
    try {
      svg = await readFile(path.join(dir, 'eval-chart.svg'));
    } catch {
      return c.json({ error: 'this eval has no chart' }, 404);
    }
    return c.body(new Uint8Array(svg), 200, {
      'Content-Type': 'image/svg+xml',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
      'Content-Security-Policy':
        "sandbox; default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    });
  });
}
