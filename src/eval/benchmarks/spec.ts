import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { EvalItem } from '../dataset.js';
import type { Scorer, Verdict } from '../scorers.js';

/** The benchmarks `massgen eval --benchmark` knows. */
export const BENCHMARK_NAMES = ['gsm8k', 'mmlu-pro', 'gpqa-diamond', 'humaneval'] as const;
export type BenchmarkName = (typeof BENCHMARK_NAMES)[number];

/** What a benchmark's question looks like once a row is read. */
export interface BenchmarkQuestion {
  /** Exactly what the team is sent. */
  prompt: string;
  /** The question as the row gives it (for the report). */
  question: string;
  /** The reference: a number, a letter, or (HumanEval) the task id. */
  answer: string;
  choices?: string[];
}

/** What a scorer may need beyond the rows: the environment (HumanEval's sandbox) and a stop signal. */
export interface ScorerContext {
  env: Readonly<Record<string, string | undefined>>;
  /** HumanEval: each program's time limit. */
  codeTimeoutMs: number;
  signal?: AbortSignal;
}

/** A benchmark's scorer, and what it holds open (HumanEval's sandbox) until closed. */
export interface BenchmarkScorer extends Scorer {
  close?(): Promise<void>;
}

/** One public benchmark: where its rows live, how a row becomes a question, and how it is graded. */
export interface BenchmarkSpec<Row = unknown> {
  name: BenchmarkName;
  /** As papers write it: `GSM8K`, `MMLU-Pro`. */
  title: string;
  /** On the Hugging Face Hub. */
  dataset: string;
  config: string;
  /** The split papers report (GPQA has only `train`). */
  split: string;
  /** Gated on the Hub: fetching needs `HF_TOKEN`. */
  gated: boolean;
  /** A row's fields as the dataset has them (extra fields allowed). */
  rowSchema: z.ZodType<Row>;
  /** The prompt sent for a row, with `{field}` placeholders (stated in the report and docs). */
  template: string;
  /** How an answer is read and graded (stated in the report and docs). */
  scoring: string;
  question(row: Row, rowIdx: number, seed: number): BenchmarkQuestion;
  /** Builds the scorer once the rows are known (`rows` by item id). May check the machine first. */
  scorer(rows: ReadonlyMap<string, Row>, context: ScorerContext): Promise<BenchmarkScorer>;
}

export const letterOf = (index: number): string => String.fromCharCode(65 + index);

/** A scorer whose grade is a pure function of the answer (everything but HumanEval). */
export function pureScorer(
  name: string,
  read: (answer: string, item: EvalItem) => string | null,
  right: (extracted: string, item: EvalItem) => boolean,
): BenchmarkScorer {
  return {
    name,
    key: (answer, item) => (answer === null ? null : read(answer, item)),
    score: async (answer, item): Promise<Verdict> => {
      const extracted = answer === null ? null : read(answer, item);
      return { correct: extracted !== null && right(extracted, item), extracted };
    },
  };
}

/** The multiple-choice prompt body: the options lettered `A. …` one per line. */
export const letteredOptions = (options: readonly string[], style: 'dot' | 'paren'): string =>
  options.map((o, i) => (style === 'dot' ? `${letterOf(i)}. ${o}` : `(${letterOf(i)}) ${o}`)).join('\n');

/** A stable pseudo-random rank: SHA-256 of the parts joined with `:`, as hex (compared as text). */
export const rank = (...parts: (string | number)[]): string =>
  createHash('sha256').update(parts.join(':')).digest('hex');
