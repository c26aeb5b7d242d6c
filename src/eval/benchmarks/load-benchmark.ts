import { createHash } from 'node:crypto';
import type { DownloadProgress } from '../../types/backend.js';
import { ConfigError } from '../../types/errors.js';
import type { EvalItem } from '../dataset.js';
import { gpqaDiamond } from './gpqa.js';
import { gsm8k } from './gsm8k.js';
import { humanEval } from './humaneval.js';
import { loadSplit, type LoadedSplit } from './load-split.js';
import { mmluPro } from './mmlu-pro.js';
import { rank, type BenchmarkName, type BenchmarkScorer, type BenchmarkSpec } from './spec.js';

/** Every benchmark by name. */
export const BENCHMARKS: Readonly<Record<BenchmarkName, BenchmarkSpec<never>>> = {
  gsm8k: gsm8k as BenchmarkSpec<never>,
  'mmlu-pro': mmluPro as BenchmarkSpec<never>,
  'gpqa-diamond': gpqaDiamond as BenchmarkSpec<never>,
  humaneval: humanEval as BenchmarkSpec<never>,
};

/** Which benchmark, which rows. */
export interface BenchmarkRequest {
  name: BenchmarkName;
  /** Default: the split papers report (the spec's). */
  split?: string;
  /** A sample of this many rows (seeded); default every row. */
  limit?: number;
  /** Chooses the sample and GPQA's option order; default 0. */
  seed?: number;
  /** HumanEval: each program's time limit; default 10 s. */
  codeTimeoutMs?: number;
}

/** What a reader needs to know which rows were asked, so two users' numbers can be compared. */
export interface RowsRecord {
  benchmark: BenchmarkName;
  title: string;
  dataset: string;
  config: string;
  split: string;
  /** The dataset's commit on the Hub when the rows were fetched. */
  revision: string;
  source: string;
  fetchedAt: string;
  numRowsTotal: number;
  seed: number;
  /** The sample's size; null when every row was used. */
  limit: number | null;
  /** The row indices in the split, ascending. */
  rows: number[];
  /** SHA-256 of the rows used: one JSON line `[row_idx, row]` per row (keys sorted), in order. */
  rowsSha256: string;
  /** The prompt template and the scoring rule. */
  prompt: string;
  scoring: string;
}

/** A benchmark ready to run: its questions, its scorer and the record of its rows. */
export interface LoadedBenchmark {
  spec: BenchmarkSpec<never>;
  items: EvalItem[];
  scorer: BenchmarkScorer;
  record: RowsRecord;
  /** How the split was had (fetched now, from the cache, offline from the cache). */
  from: LoadedSplit['from'];
}

export const DEFAULT_CODE_TIMEOUT_MS = 10_000;

/**
 * The rows a run uses: every row, or `limit` of them — those ranked first by SHA-256 of `seed:row` —
 * in ascending order. The same seed always picks the same rows, and a larger limit keeps the rows of
 * a smaller one (a rerun with more rows resumes).
 */
export function selectRows(total: number, limit: number | undefined, seed: number): number[] {
  const all = Array.from({ length: total }, (_, i) => i);
  if (limit === undefined || limit >= total) return all;
  const ranks = all.map((i) => rank(seed, i));
  return all
    .sort((a, b) => (ranks[a]! < ranks[b]! ? -1 : 1))
    .slice(0, limit)
    .sort((a, b) => a - b);
}

/** JSON with every object's keys sorted, so the hash does not depend on the server's key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Loads a public benchmark (`loadSplit`: the cache or the datasets server), picks its rows, checks
 * each against the benchmark's shape and turns it into a question with the benchmark's fixed prompt,
 * and builds its scorer (HumanEval: checks the sandbox and python3 first).
 *
 * @throws {ConfigError} one line: the split could not be had, a row is not in the benchmark's shape
 * (named by its index and key), or the scorer cannot run here.
 */
export async function loadBenchmark(
  request: BenchmarkRequest,
  options: {
    env: Readonly<Record<string, string | undefined>>;
    home?: string;
    signal?: AbortSignal;
    onProgress?: (progress: DownloadProgress) => void;
    onNote?: (message: string) => void;
  },
): Promise<LoadedBenchmark> {
  const spec = BENCHMARKS[request.name];
  const seed = request.seed ?? 0;
  const split = await loadSplit({
    dataset: spec.dataset,
    config: spec.config,
    split: request.split ?? spec.split,
    title: spec.title,
    gated: spec.gated,
    env: options.env,
    ...(options.home ? { home: options.home } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.onNote ? { onNote: options.onNote } : {}),
  });
  const chosen = selectRows(split.rows.length, request.limit, seed);
  const items: EvalItem[] = [];
  const rows = new Map<string, never>();
  const hash = createHash('sha256');
  for (const index of chosen) {
    const { row_idx, row } = split.rows[index]!;
    const parsed = spec.rowSchema.safeParse(row);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const key = issue?.path.join('.') || 'the row';
      throw new ConfigError(
        `${spec.title} row ${row_idx} (${spec.dataset} ${split.config}/${split.split}): "${key}": ${issue?.message ?? 'unexpected shape'}`,
        {
          hint: 'the dataset is not in the shape this benchmark expects: check MASSGEN_HF_DATASETS_ENDPOINT, or remove its cached copy',
        },
      );
    }
    hash.update(`${canonicalJson([row_idx, row])}\n`);
    const id = `${spec.name}-${row_idx}`;
    const question = spec.question(parsed.data, row_idx, seed);
    rows.set(id, parsed.data);
    items.push({
      id,
      prompt: question.prompt,
      question: question.question,
      answer: question.answer,
      ...(question.choices ? { choices: question.choices } : {}),
      attachments: [],
      line: row_idx,
    });
  }
  const scorer = await spec.scorer(rows, {
    env: options.env,
    codeTimeoutMs: request.codeTimeoutMs ?? DEFAULT_CODE_TIMEOUT_MS,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return {
    spec,
    items,
    scorer,
    from: split.from,
    record: {
      benchmark: spec.name,
      title: spec.title,
      dataset: spec.dataset,
      config: split.config,
      split: split.split,
      revision: split.revision,
      source: split.source,
      fetchedAt: split.fetchedAt,
      numRowsTotal: split.numRowsTotal,
      seed,
      // A limit that covers the split takes every row: the record says so rather than "a sample".
      limit: request.limit !== undefined && request.limit < split.rows.length ? request.limit : null,
      rows: chosen.map((i) => split.rows[i]!.row_idx),
      rowsSha256: hash.digest('hex'),
      prompt: spec.template,
      scoring: spec.scoring,
    },
  };
}
