import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Env } from '../app/essentials.js';
import type { DownloadProgress } from '../types/backend.js';
import { ConfigError } from '../types/errors.js';
import { loadBenchmark, type BenchmarkRequest, type RowsRecord } from './benchmarks/load-benchmark.js';
import { readDataset, type DatasetFormat, type EvalItem } from './dataset.js';
import { createJudgeScorer, type JudgeScorer } from './judge.js';
import { localScorer, type Scorer, type ScorerName } from './scorers.js';

/** Where an eval's questions come from: a dataset file and a scorer, or a public benchmark. */
export interface EvalSourceOptions {
  config: string;
  dataset?: string;
  scorer?: ScorerName;
  benchmark?: BenchmarkRequest;
  samples?: number;
  format?: DatasetFormat;
  tolerance?: number;
  judgeConfig?: string;
  judgeAgent?: string;
  signal?: AbortSignal;
  home?: string;
  onDownloadProgress?: (progress: DownloadProgress) => void;
  onNote?: (message: string) => void;
}

/** The questions, how they are graded, and what the report says about both. */
export interface EvalSource {
  items: EvalItem[];
  scorer: Scorer;
  /** The dataset file as given, or the benchmark's name. */
  label: string;
  /** How answers are graded, as the report names it. */
  scorerLabel: string;
  benchmark: RowsRecord | null;
  judge: JudgeScorer | null;
  close(): Promise<void>;
}

/** The dataset file or the benchmark, whichever the options name (exactly one of them). */
export async function evalSource(options: EvalSourceOptions, cwd: string, env: Env): Promise<EvalSource> {
  if (options.benchmark) {
    if (options.dataset !== undefined)
      throw new ConfigError('give either a dataset or a benchmark, not both', {
        hint: 'massgen eval --benchmark NAME … or massgen eval --dataset FILE --scorer NAME …',
      });
    const loaded = await loadBenchmark(options.benchmark, {
      env,
      ...(options.home ? { home: options.home } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onDownloadProgress ? { onProgress: options.onDownloadProgress } : {}),
      ...(options.onNote ? { onNote: options.onNote } : {}),
    });
    return {
      items: loaded.items,
      scorer: loaded.scorer,
      label: loaded.spec.name,
      scorerLabel: `${loaded.spec.name} (${loaded.spec.title}'s own)`,
      benchmark: loaded.record,
      judge: null,
      close: async () => loaded.scorer.close?.(),
    };
  }
  if (options.dataset === undefined || options.scorer === undefined)
    throw new ConfigError('an eval needs a dataset and a scorer, or a benchmark', {
      hint: 'massgen eval --dataset FILE --scorer NAME …, or massgen eval --benchmark gsm8k … (docs/eval.md)',
    });
  const dataset = readDataset(options.dataset, {
    cwd,
    ...(options.format ? { format: options.format } : {}),
    ...(options.samples === undefined ? {} : { limit: options.samples }),
  });
  const judge =
    options.scorer === 'judge'
      ? await createJudgeScorer({
          config: options.judgeConfig ?? options.config,
          cwd,
          env,
          ...(options.judgeAgent ? { agentId: options.judgeAgent } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        })
      : null;
  const scorer =
    judge ??
    localScorer(
      options.scorer as Exclude<ScorerName, 'judge'>,
      options.tolerance === undefined ? {} : { tolerance: options.tolerance },
    );
  return {
    items: dataset.items,
    scorer,
    label: options.dataset,
    scorerLabel:
      options.scorer === 'numeric' ? `numeric (tolerance ${options.tolerance ?? 1e-6})` : options.scorer,
    benchmark: null,
    judge,
    close: async () => judge?.close(),
  };
}

/** What must stay the same for an output folder's answers to be reused: the questions as asked. */
const sameQuestions = (r: RowsRecord) => ({
  benchmark: r.benchmark,
  dataset: r.dataset,
  config: r.config,
  split: r.split,
  revision: r.revision,
  seed: r.seed,
  prompt: r.prompt,
});

/**
 * Claims the output folder for this benchmark run (`benchmark.json`): a rerun with the same benchmark,
 * split, revision, seed and prompt resumes there; anything else would mix answers to other questions
 * (another seed orders GPQA's options differently) and is refused.
 */
export function claimOutput(out: string, record: RowsRecord): void {
  const file = path.join(out, 'benchmark.json');
  const wanted = sameQuestions(record);
  let held: unknown = null;
  try {
    held = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    held = null;
  }
  if (held !== null) {
    const mismatch = Object.entries(wanted).find(
      ([key, value]) => (held as Record<string, unknown>)[key] !== value,
    );
    if (mismatch)
      throw new ConfigError(
        `${out} holds the answers of another benchmark run (its ${mismatch[0]} differs): they cannot be reused`,
        { hint: 'pass another --output, or remove that folder to start over' },
      );
  }
  writeFileSync(file, `${JSON.stringify(wanted, null, 2)}\n`);
}
