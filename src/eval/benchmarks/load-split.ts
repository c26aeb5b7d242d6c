import { z } from 'zod';
import { localModelEnv } from '../../config/local-model-env.js';
import type { DownloadProgress } from '../../types/backend.js';
import { ConfigError } from '../../types/errors.js';
import { datasetsEndpoint, getHfJson, HfStatusError, HfUnreachable } from './hf-client.js';
import {
  benchmarkCacheDir,
  newestCachedSplit,
  readCachedSplit,
  SAFE_SEGMENT,
  splitFolder,
  writeCachedSplit,
  type CachedSplit,
  type SplitRow,
} from './split-cache.js';

/** The datasets server's page size limit: `length` may not exceed it. */
export const PAGE_ROWS = 100;
/** No benchmark split is anywhere near this; a server claiming more is refused. */
export const MAX_ROWS = 100_000;
const MAX_PAGE_BYTES = 16 * 2 ** 20;
const MAX_SPLIT_BYTES = 512 * 2 ** 20;

/** What {@link loadSplit} needs. */
export interface LoadSplitOptions {
  dataset: string;
  config: string;
  split: string;
  /** The benchmark's name for messages (`GPQA-Diamond`). */
  title: string;
  /** Gated on the Hub: fetching it needs `HF_TOKEN` (a cached copy does not). */
  gated: boolean;
  env: Readonly<Record<string, string | undefined>>;
  home?: string;
  signal?: AbortSignal;
  onProgress?: (progress: DownloadProgress) => void;
  onNote?: (message: string) => void;
}

/** A split and how it was had. */
export interface LoadedSplit extends CachedSplit {
  /** `network`: fetched now; `cache`: the cached copy of the Hub's current revision; `offline`: the newest cached copy, the Hub unreachable. */
  from: 'network' | 'cache' | 'offline';
}

const RevisionSchema = z.looseObject({
  sha: z.string().regex(/^[0-9a-f]{40}$/, { error: 'not a commit id' }),
});

const RowsPageSchema = z.looseObject({
  rows: z
    .array(
      z.looseObject({
        row_idx: z.int().nonnegative(),
        row: z.record(z.string(), z.unknown()),
        truncated_cells: z.array(z.string()).optional(),
      }),
    )
    .max(PAGE_ROWS),
  num_rows_total: z.int().nonnegative(),
  partial: z.boolean().optional(),
});

const shape = (error: z.ZodError): string => {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'the body'}: ${issue.message}` : 'unexpected shape';
};

const ENDPOINT_HINT =
  'MASSGEN_HF_DATASETS_ENDPOINT (rows) and MASSGEN_HF_ENDPOINT (the Hub) choose the servers; docs/eval.md';

/** An error status as one line naming what was asked; the gated message for a refused gated set. */
function statusError(error: HfStatusError, what: string, options: LoadSplitOptions): ConfigError {
  if ((error.status === 401 || error.status === 403) && options.gated) return gatedError(options);
  const words = error.serverMessage ? `: ${error.serverMessage}` : '';
  if (error.status === 404)
    return new ConfigError(`${what} was not found (HTTP 404${words})`, {
      hint: `check --split (the benchmark's default is usually right); ${ENDPOINT_HINT}`,
    });
  return new ConfigError(`${what} failed with HTTP ${error.status}${words}`, {
    hint: 'try again later, or run with a cached copy (docs/eval.md)',
  });
}

function gatedError(options: LoadSplitOptions): ConfigError {
  return new ConfigError(
    `${options.title} (${options.dataset}) is gated on Hugging Face: set HF_TOKEN to an access token of an account that accepted its terms at https://huggingface.co/datasets/${options.dataset}`,
  );
}

/**
 * A whole split of a Hub dataset: the cached copy of the Hub's current revision when there is one,
 * else every row fetched from the datasets server's `/rows` API (100 per request) and cached. When
 * the Hub cannot be reached, the newest cached copy is used (and said so); without one it fails.
 * Every answer is bounded in size and checked in shape; the token goes only to Hugging Face hosts.
 *
 * @throws {ConfigError} one line naming what failed: the gated set without `HF_TOKEN`, an unknown
 * split, an unreachable server with no cached copy, an answer too large or in the wrong shape.
 */
export async function loadSplit(options: LoadSplitOptions): Promise<LoadedSplit> {
  const { dataset, config, split, env } = options;
  if (!SAFE_SEGMENT.test(split))
    throw new ConfigError(`--split "${split}": expected a split name such as test or validation`);
  const folder = splitFolder(benchmarkCacheDir(env, options.home), dataset, config, split);
  const token = env.HF_TOKEN || undefined;
  const hub = localModelEnv(env).hubEndpoint;
  const label = `${dataset} ${config}/${split}`;
  const common = { ...(token ? { token } : {}), ...(options.signal ? { signal: options.signal } : {}) };

  let revision: string;
  try {
    const body = await getHfJson(`${hub}/api/datasets/${dataset}`, {
      ...common,
      maxBytes: MAX_PAGE_BYTES,
      what: `the revision of ${dataset} on ${hub}`,
    });
    const parsed = RevisionSchema.safeParse(body);
    if (!parsed.success)
      throw new ConfigError(`the Hub's answer about ${dataset} has no revision (${shape(parsed.error)})`, {
        hint: ENDPOINT_HINT,
      });
    revision = parsed.data.sha;
  } catch (error) {
    // Offline, or the Hub refused: a cached copy still answers (the report names its revision).
    if (!(error instanceof HfUnreachable) && !(error instanceof HfStatusError)) throw error;
    const cached = newestCachedSplit(folder);
    if (cached) {
      const why =
        error instanceof HfUnreachable
          ? `cannot reach ${hub} (${error.reason})`
          : `${hub} answered HTTP ${error.status}`;
      options.onNote?.(
        `${why}: using the cached ${label} (revision ${cached.revision.slice(0, 12)}, fetched ${cached.fetchedAt})`,
      );
      return { ...cached, from: 'offline' };
    }
    if (error instanceof HfStatusError) throw statusError(error, `the Hub's record of ${dataset}`, options);
    throw new ConfigError(`cannot reach ${hub} (${error.reason}) and ${label} is not cached in ${folder}`, {
      hint: `connect once to fetch it; ${ENDPOINT_HINT}`,
    });
  }

  const cached = readCachedSplit(folder, revision);
  if (cached) return { ...cached, from: 'cache' };
  if (options.gated && !token) throw gatedError(options);
  const rows = await fetchRows(options, label, common);
  const fresh: CachedSplit = {
    format: 1,
    dataset,
    config,
    split,
    revision,
    numRowsTotal: rows.length,
    source: datasetsEndpoint(env),
    fetchedAt: new Date().toISOString(),
    rows,
  };
  writeCachedSplit(folder, fresh);
  return { ...fresh, from: 'network' };
}

/** Every row of the split, page by page, each page checked against the previous ones. */
async function fetchRows(
  options: LoadSplitOptions,
  label: string,
  common: { token?: string; signal?: AbortSignal },
): Promise<SplitRow[]> {
  const endpoint = datasetsEndpoint(options.env);
  const started = Date.now();
  const rows: SplitRow[] = [];
  let total: number | null = null;
  let bytes = 0;
  const report = (done: boolean) => {
    const seconds = Math.max(0.001, (Date.now() - started) / 1000);
    const perRow = rows.length > 0 ? bytes / rows.length : 0;
    const estimate = total === null || rows.length === 0 ? null : Math.max(bytes, Math.round(perRow * total));
    const speed = bytes / seconds;
    options.onProgress?.({
      file: label,
      receivedBytes: bytes,
      totalBytes: done ? bytes : estimate,
      bytesPerSecond: speed,
      secondsLeft: estimate === null || speed <= 0 ? null : Math.max(0, (estimate - bytes) / speed),
      done,
    });
  };
  const query = (offset: number) =>
    new URLSearchParams({
      dataset: options.dataset,
      config: options.config,
      split: options.split,
      offset: String(offset),
      length: String(PAGE_ROWS),
    });
  for (let offset = 0; total === null || offset < total; offset += PAGE_ROWS) {
    const what = `${label} rows ${offset}–${offset + PAGE_ROWS - 1} from ${endpoint}`;
    let body: unknown;
    try {
      body = await getHfJson(`${endpoint}/rows?${query(offset)}`, {
        ...common,
        maxBytes: MAX_PAGE_BYTES,
        what,
        onBytes: (n) => (bytes += n),
      });
    } catch (error) {
      if (error instanceof HfStatusError) throw statusError(error, what, options);
      if (error instanceof HfUnreachable)
        throw new ConfigError(`cannot fetch ${what} (${error.reason})`, { hint: ENDPOINT_HINT });
      throw error;
    }
    const parsed = RowsPageSchema.safeParse(body);
    if (!parsed.success)
      throw new ConfigError(`the answer for ${what} is not a page of rows (${shape(parsed.error)})`, {
        hint: ENDPOINT_HINT,
      });
    const page = parsed.data;
    const bad = (why: string) => new ConfigError(`the answer for ${what} ${why}`, { hint: ENDPOINT_HINT });
    if (page.partial) throw bad('covers only part of the split (partial): the benchmark needs all of it');
    if (total === null) {
      if (page.num_rows_total > MAX_ROWS)
        throw bad(`claims ${page.num_rows_total} rows (more than ${MAX_ROWS})`);
      if (page.num_rows_total === 0) throw bad('holds no rows');
      total = page.num_rows_total;
    } else if (page.num_rows_total !== total)
      throw bad(`says ${page.num_rows_total} rows, earlier pages ${total}`);
    const expected = Math.min(PAGE_ROWS, total - offset);
    if (page.rows.length !== expected) throw bad(`holds ${page.rows.length} rows, expected ${expected}`);
    for (const [i, r] of page.rows.entries()) {
      if (r.row_idx !== offset + i) throw bad(`has row ${r.row_idx} where row ${offset + i} belongs`);
      if (r.truncated_cells && r.truncated_cells.length > 0)
        throw bad(`cut row ${r.row_idx} short (truncated cells): the benchmark needs whole rows`);
      rows.push({ row_idx: r.row_idx, row: r.row });
    }
    if (bytes > MAX_SPLIT_BYTES) throw bad(`brings the split past ${MAX_SPLIT_BYTES / 2 ** 20} MiB: refused`);
    report(false);
  }
  report(true);
  return rows;
}
