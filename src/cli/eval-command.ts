import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { BatchExecutor } from '../batch/index.js';
import { BENCHMARK_NAMES, type BenchmarkName } from '../eval/benchmarks/spec.js';
import { DATASET_FORMATS, type DatasetFormat } from '../eval/dataset.js';
import { BASELINE_NAMES, type BaselineName, type SystemSummary } from '../eval/report.js';
import { runEval } from '../eval/run-eval.js';
import { SEPARATE_BASELINE_KINDS, type SeparateBaseline } from '../eval/separate-baselines.js';
import { SCORER_NAMES, type ScorerName } from '../eval/scorers.js';
import { ExitCode } from '../types/errors.js';
import { dataFile, runBatchShell, type BatchCommandIo } from './batch-command-shell.js';
import { summaryLines } from './batch-progress.js';
import { benchmarkLine, checkEvalCombination, writeLocalTeam } from './eval-benchmark-options.js';
import { positiveNumber, wholeNumber } from './number-arguments.js';
import { createProgressBar } from './progress-bar.js';

/** `massgen eval`'s own command line. */
export interface EvalOptions {
  config?: string;
  /** Instead of `config`: a team of three agents on this local GGUF model (a path or `hf:…`). */
  localModel?: string;
  dataset?: string;
  scorer?: ScorerName;
  /** Instead of `dataset`: a public benchmark, with its rows and seed. */
  benchmark?: BenchmarkName;
  limit?: number;
  split?: string;
  seed: number;
  codeTimeout: number;
  /** From the team's logs (`single`, `majority`) and run as separate calls (`single-call`, `best-of-n`). */
  baselines: { logs: BaselineName[]; separate: SeparateBaseline[] };
  samples?: number;
  output: string;
  format: DatasetFormat;
  tolerance?: number;
  judgeConfig?: string;
  judgeAgent?: string;
  concurrency?: number;
  maxCostUsd?: number;
  redoErrors: boolean;
  queue?: string;
  queueName: string;
  attempts: number;
  backoff: number;
  jobTimeout?: number;
}

const baselineList = (value: string): EvalOptions['baselines'] => {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const chosen: EvalOptions['baselines'] = { logs: [], separate: [] };
  for (const name of names) {
    const [kind = '', agent] = name.split(':', 2) as [string, string | undefined];
    if ((SEPARATE_BASELINE_KINDS as readonly string[]).includes(kind) && agent !== '')
      chosen.separate.push({ kind: kind as SeparateBaseline['kind'], ...(agent ? { agent } : {}) });
    else if ((BASELINE_NAMES as readonly string[]).includes(name)) chosen.logs.push(name as BaselineName);
    else
      throw new InvalidArgumentError(
        `unknown baseline "${name}": expected a list of ${[...BASELINE_NAMES, 'single-call[:AGENT]', 'best-of-n[:AGENT]'].join(', ')}`,
      );
  }
  return chosen;
};

const evalExamples = `
Dataset: one JSON object per line — {"id": "q1", "question": "…", "answer": "…", "choices"?: ["…", "…"]};
MMLU-style (choices + answer index), GPQA ("Question", "Correct Answer", "Incorrect Answer 1..3") and GSM8K
("#### 42" answers) lines are recognised too. Writes DIR/results.jsonl (resumable like massgen batch),
DIR/eval-report.md, DIR/eval-report.json and DIR/eval-chart.svg. Rerun the same command to resume.

Examples:
  $ massgen eval --config team.yaml --dataset qa.jsonl --scorer exact
  $ massgen eval --config team.yaml --dataset gpqa.jsonl --scorer choice --samples 50 --output gpqa-eval
  $ massgen eval --config team.yaml --dataset qa.jsonl --scorer numeric --baselines single,majority,single-call,best-of-n
  $ massgen eval --config team.yaml --dataset gsm8k.jsonl --scorer numeric --queue redis://127.0.0.1:6379

Public benchmarks (${BENCHMARK_NAMES.join(', ')}), fetched from the Hugging Face datasets server and
cached in ~/.cache/massgen/benchmarks, graded by their authors' rules (docs/eval.md):
  $ massgen eval --benchmark gsm8k --limit 50 --config team.yaml --baselines single,majority,best-of-n
  $ massgen eval --benchmark gsm8k --limit 50 --local-model hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf
  $ HF_TOKEN=hf_… massgen eval --benchmark gpqa-diamond --seed 1 --config team.yaml`;

/** Parses `massgen eval …` (the arguments after `eval`). Errors are commander's. */
export function parseEvalArgs(argv: readonly string[]): EvalOptions {
  const program = new Command('massgen eval')
    .description(
      'Does the team beat one model? Runs a dataset or a public benchmark through the team and grades it against baselines.',
    )
    .option('-c, --config <file>', 'the team (a YAML/JSON file or @examples/NAME)')
    .option(
      '--local-model <path>',
      'instead of --config: three agents on this local GGUF model (a path or hf:<user>/<repo>/<file>.gguf)',
    )
    .option(
      '-d, --dataset <file>',
      'the questions and reference answers: JSON Lines (or a bundled file: @examples/demo/qa.jsonl)',
    )
    .addOption(new Option('--scorer <name>', 'with --dataset: how answers are graded').choices(SCORER_NAMES))
    .addOption(
      new Option(
        '--benchmark <name>',
        'instead of --dataset: a public benchmark, graded its own way',
      ).choices(BENCHMARK_NAMES),
    )
    .option('--limit <n>', '--benchmark: a seeded sample of N rows (default: every row)', wholeNumber(1))
    .option('--split <name>', '--benchmark: the split (default: the one papers report)')
    .option('--seed <n>', "--benchmark: picks the sample and GPQA's option order", wholeNumber(0), 0)
    .option('--code-timeout <seconds>', 'humaneval: time limit of each program', positiveNumber, 10)
    .option(
      '--baselines <list>',
      `from the team's own logs: ${BASELINE_NAMES.join(',')}; as separate calls at the team's token budget: single-call[:AGENT],best-of-n[:AGENT]`,
      baselineList,
      { logs: [...BASELINE_NAMES], separate: [] },
    )
    .option('--samples <n>', '--dataset: evaluate only the first N questions', wholeNumber(1))
    .option('-o, --output <dir>', 'where results and reports go (reruns resume there)', 'eval-output')
    .addOption(new Option('--format <name>', 'the dataset format').choices(DATASET_FORMATS).default('auto'))
    .option('--tolerance <x>', 'numeric: relative tolerance (default 1e-6)', positiveNumber)
    .option('--judge-config <file>', 'judge: the config with the judge model (default: --config)')
    .option('--judge-agent <id>', "judge: that config's agent whose model grades (default: the first)")
    .option('--concurrency <n>', 'runs at once (default 4)', wholeNumber(1))
    .option('--max-cost-usd <dollars>', 'start no new run once the eval has cost this much', positiveNumber)
    .option('--redo-errors', 'run again the questions whose runs failed', false)
    .option('--queue <url>', 'run on queue workers (massgen worker) through Redis: redis://HOST:PORT')
    .option('--queue-name <name>', 'with --queue: the queue on that Redis', 'massgen')
    .option('--attempts <n>', 'with --queue: attempts per question', wholeNumber(1), 3)
    .option('--backoff <seconds>', 'with --queue: wait before the first retry', positiveNumber, 5)
    .option('--job-timeout <seconds>', 'with --queue: stop a run after this long', positiveNumber)
    .addHelpText('after', evalExamples)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stdout.write(text) })
    .showSuggestionAfterError(true);
  program.parse([...argv], { from: 'user' });
  const options = program.opts<EvalOptions>();
  checkEvalCombination(options, (key) => program.getOptionValueSource(key) === 'cli');
  return options;
}

/** What `massgen eval` needs from the process: the same as `massgen batch`. */
export type EvalCommandIo = BatchCommandIo;

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The summary table printed to stdout. */
function systemLine(s: SystemSummary): string {
  const vs = s.vsTeam
    ? `  vs team: ${s.vsTeam.teamOnly}/${s.vsTeam.baselineOnly}, p=${s.vsTeam.pValue.toFixed(4)}`
    : '';
  return `  ${s.name.padEnd(18)} ${`${s.correct}/${s.n}`.padStart(9)}  ${pct(s.accuracy).padStart(6)}  [${pct(s.ci95.low)}, ${pct(s.ci95.high)}]${vs}\n`;
}

/** Runs the eval. Returns the exit code: 0 report written, 2 questions left unanswered, 130 interrupted. */
export async function runEvalCommand(options: EvalOptions, io: EvalCommandIo): Promise<number> {
  const download = createProgressBar(io.stderr, {
    isTTY: io.stderrIsTTY === true,
    ...(io.columns ? { width: io.columns } : {}),
  });
  return runBatchShell(io, async ({ say, view, connectQueue }) => {
    let executor: BatchExecutor | undefined;
    if (options.queue) {
      const queue = await connectQueue(
        { ...options, queue: options.queue },
        // The single-agent baselines come from each run's log folder.
        { output: path.join(options.output, 'results.jsonl'), logging: true },
      );
      executor = queue.executor;
      say(`massgen eval: runs go to queue "${queue.name}" on ${queue.label}\n`);
    }
    const config = options.localModel
      ? writeLocalTeam(options.localModel, path.resolve(io.cwd, options.output), io.cwd)
      : (options.config as string);
    let outcome;
    try {
      outcome = await runEval({
        config,
        ...(options.dataset === undefined ? {} : { dataset: dataFile(options.dataset) }),
        ...(options.scorer === undefined ? {} : { scorer: options.scorer }),
        ...(options.benchmark === undefined
          ? {}
          : {
              benchmark: {
                name: options.benchmark,
                seed: options.seed,
                codeTimeoutMs: options.codeTimeout * 1000,
                ...(options.limit === undefined ? {} : { limit: options.limit }),
                ...(options.split === undefined ? {} : { split: options.split }),
              },
            }),
        onDownloadProgress: download,
        output: options.output,
        baselines: options.baselines.logs,
        separate: options.baselines.separate,
        format: options.format,
        redoErrors: options.redoErrors,
        cwd: io.cwd,
        env: io.env,
        ...(options.samples === undefined ? {} : { samples: options.samples }),
        ...(options.tolerance === undefined ? {} : { tolerance: options.tolerance }),
        ...(options.judgeConfig === undefined ? {} : { judgeConfig: options.judgeConfig }),
        ...(options.judgeAgent === undefined ? {} : { judgeAgent: options.judgeAgent }),
        // Local models share one machine: one question at a time unless asked.
        ...(options.concurrency === undefined
          ? options.localModel
            ? { concurrency: 1 }
            : {}
          : { concurrency: options.concurrency }),
        ...(options.maxCostUsd === undefined ? {} : { maxCostUsd: options.maxCostUsd }),
        ...(io.signal ? { signal: io.signal } : {}),
        ...(executor ? { executor } : {}),
        onProgress: (progress) => view.update(progress),
        onNote: (message) => view.note(message),
      });
    } catch (error) {
      download.abandon();
      throw error;
    }
    view.end();
    io.stdout(io.scrub(summaryLines(outcome.batch)));
    if (!outcome.summary || !outcome.files) return ExitCode.interrupted;
    const { summary, files } = outcome;
    io.stdout(
      io.scrub(
        outcome.benchmark
          ? benchmarkLine(summary.questions, outcome.benchmark)
          : `Eval: ${summary.questions} questions, scorer ${options.scorer}\n`,
      ),
    );
    for (const system of summary.systems) io.stdout(io.scrub(systemLine(system)));
    if (summary.withoutLogs > 0)
      io.stdout(`  (${summary.withoutLogs} questions without a readable run log: no single-agent answers)\n`);
    io.stdout(`Report: ${files.markdown}\n        ${files.json}\n        ${files.chart}\n`);
    return outcome.batch.notRun > 0 ? ExitCode.runFailed : ExitCode.success;
  });
}
