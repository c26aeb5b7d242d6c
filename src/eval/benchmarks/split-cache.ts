import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/** One row as the datasets server gives it: its index in the split and its fields. */
export const SplitRowSchema = z.object({
  row_idx: z.int().nonnegative(),
  row: z.record(z.string(), z.unknown()),
});
export type SplitRow = z.infer<typeof SplitRowSchema>;

/** A whole split of a dataset at one revision: what the cache holds and what a benchmark is cut from. */
export const CachedSplitSchema = z.object({
  format: z.literal(1),
  dataset: z.string(),
  config: z.string(),
  split: z.string(),
  /** The dataset's commit on the Hub when the rows were fetched. */
  revision: z.string(),
  numRowsTotal: z.int().nonnegative(),
  /** Where the rows came from (the datasets server's address). */
  source: z.string(),
  /** ISO 8601. */
  fetchedAt: z.string(),
  rows: z.array(SplitRowSchema),
});
export type CachedSplit = z.infer<typeof CachedSplitSchema>;

/**
 * `$XDG_CACHE_HOME/massgen/benchmarks`, else `~/.cache/massgen/benchmarks` (beside the local models'
 * cache).
 */
export function benchmarkCacheDir(
  env: Readonly<Record<string, string | undefined>>,
  home = os.homedir(),
): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(env.HOME || home, '.cache');
  return path.join(cacheHome, 'massgen', 'benchmarks');
}

/** A name that is safe as one path segment (dataset owner/name, config, split, revision). */
export const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The folder holding a split's revisions: `<cache>/<owner>--<name>/<config>/<split>/`. */
export function splitFolder(cacheDir: string, dataset: string, config: string, split: string): string {
  const parts = [...dataset.split('/'), config, split];
  // Never a path outside the cache: every part is checked (the split may come from the command line).
  for (const part of parts)
    if (!SAFE_SEGMENT.test(part) || part.includes('..'))
      throw new Error(`unsafe cache path segment "${part}"`);
  return path.join(cacheDir, dataset.replace('/', '--'), config, split);
}

/** The cached split at `revision`, or null when absent or unreadable (it is then fetched again). */
export function readCachedSplit(folder: string, revision: string): CachedSplit | null {
  try {
    const parsed = CachedSplitSchema.safeParse(
      JSON.parse(readFileSync(path.join(folder, `${revision}.json`), 'utf8')),
    );
    return parsed.success && parsed.data.revision === revision ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The most recently fetched readable revision in `folder` (for offline use), or null. */
export function newestCachedSplit(folder: string): CachedSplit | null {
  let names: string[];
  try {
    names = readdirSync(folder).filter((n) => n.endsWith('.json'));
  } catch {
    return null;
  }
  let newest: CachedSplit | null = null;
  for (const name of names) {
    const split = readCachedSplit(folder, name.slice(0, -'.json'.length));
    if (split && (!newest || split.fetchedAt > newest.fetchedAt)) newest = split;
  }
  return newest;
}

/**
 * Writes the split into the cache atomically: a temporary file in the same folder renamed over the
 * final name, so a reader (another eval at the same time) sees the old file or the whole new one.
 */
export function writeCachedSplit(folder: string, split: CachedSplit): string {
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `${split.revision}.json`);
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, JSON.stringify(split));
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return file;
}
