import { Command } from 'commander';
import { runBatch, type BatchExecutor, type BatchSummary } from '../batch/index.js';
import { ExitCode } from '../types/errors.js';
import { dataFile, runBatchShell, type BatchCommandIo } from './batch-command-shell.js';
import { summaryLines } from './batch-progress.js';
import { positiveNumber, wholeNumber } from './number-arguments.js';

/** `massgen batch`'s own command line. */
export interface BatchOptions {
  config?: string;
  input: string;
  output: string;
  concurrency?: number;
  strict: boolean;
  redoErrors: boolean;
  maxCostUsd?: number;
  logs: boolean;
  queue?: string;
  queueName: string;
  attempts: number;
  backoff: number;
  jobTimeout?: number;
  queueSecretFile?: string;
}

const batchExamples = `
Input: one JSON object per line — {"id": "q1", "question": "…", "attachments"?: ["notes.txt"], "config"?: "other.yaml"}.
Output: one JSON line per question (id, question, answer, winner, votes, tokens, cost_usd, cost_known, duration_ms,
log_dir, error), appended as each run ends. Run the same command again to resume: ids already in the
output are skipped.

Examples:
  $ massgen batch --config team.yaml --input questions.jsonl --output results.jsonl
  $ massgen batch --config team.yaml --input q.jsonl --output r.jsonl --concurrency 8 --max-cost-usd 5
  $ export MASSGEN_QUEUE_SECRET=$(cat ~/.massgen-queue-secret)   # the workers' too: jobs are signed
  $ massgen batch --config team.yaml --input q.jsonl --output r.jsonl --queue redis://127.0.0.1:6379
      # runs on workers: massgen worker --queue redis://127.0.0.1:6379 (docs/batch.md)`;

/** Parses `massgen batch …` (the arguments after `batch`). Errors are commander's. */
export function parseBatchArgs(argv: readonly string[]): BatchOptions {
  const program = new Command('massgen batch')
    .description('Answer many questions from a JSON Lines file, one result line each; resumable.')
    .option('-c, --config <file>', 'the team (a YAML/JSON file or @examples/NAME); lines may name their own')
    .requiredOption(
      '-i, --input <file>',
      'the questions: JSON Lines, one {"id", "question"} per line (or a bundled file: @examples/demo/qa.jsonl)',
    )
    .requiredOption(
      '-o, --output <file>',
      'the results: JSON Lines, appended to (ids already there are skipped)',
    )
    .option(
      '--concurrency <n>',
      'runs at once (default 4; with --queue: jobs on the queue at once, 1000)',
      wholeNumber(1),
    )
    .option('--strict', 'stop at a malformed input line instead of skipping it', false)
    .option('--redo-errors', 'run again the questions whose result lines hold an error', false)
    .option('--max-cost-usd <dollars>', 'start no new run once the batch has cost this much', positiveNumber)
    .option('--no-logs', 'do not write a log folder for each run')
    .option('--queue <url>', 'run on queue workers (massgen worker) through Redis: redis://HOST:PORT')
    .option('--queue-name <name>', 'with --queue: the queue on that Redis', 'massgen')
    .option(
      '--attempts <n>',
      'with --queue: attempts per question when a run fails or times out',
      wholeNumber(1),
      3,
    )
    .option(
      '--backoff <seconds>',
      'with --queue: wait before the first retry (doubling after)',
      positiveNumber,
      5,
    )
    .option(
      '--job-timeout <seconds>',
      'with --queue: stop a run after this long (the attempt fails)',
      positiveNumber,
    )
    .option(
      '--queue-secret-file <file>',
      'with --queue: sign jobs with this secret, shared with the workers (default: $MASSGEN_QUEUE_SECRET)',
    )
    .addHelpText('after', batchExamples)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stdout.write(text) })
    .showSuggestionAfterError(true);
  program.parse([...argv], { from: 'user' });
  return program.opts<BatchOptions>();
}

/** The exit code of a finished batch: 130 interrupted, 2 when a question failed or was left, else 0. */
function exitCodeOf(summary: BatchSummary): number {
  if (summary.stoppedBy === 'interrupt') return ExitCode.interrupted;
  return summary.failed > 0 || summary.notRun > 0 ? ExitCode.runFailed : ExitCode.success;
}

// Kept under its old name here: the io type moved to batch-command-shell.ts when eval came to share it.
export type { BatchCommandIo };

/** Runs the batch (in process, or on the queue with `--queue`). Returns the exit code. */
export async function runBatchCommand(options: BatchOptions, io: BatchCommandIo): Promise<number> {
  return runBatchShell(io, async ({ say, view, connectQueue }) => {
    let executor: BatchExecutor | undefined;
    if (options.queue) {
      const queue = await connectQueue(
        { ...options, queue: options.queue },
        { output: options.output, ...(options.logs ? {} : { logging: false }) },
      );
      executor = queue.executor;
      const workers = await queue.workers();
      say(
        `massgen batch: runs go to queue "${queue.name}" on ${queue.label}` +
          (workers > 0
            ? ` (${workers} worker${workers === 1 ? '' : 's'} connected)\n`
            : `; no worker is connected yet — start one with massgen worker --queue ${queue.label}\n`),
      );
    }
    const summary = await runBatch({
      input: dataFile(options.input),
      output: options.output,
      cwd: io.cwd,
      env: io.env,
      strict: options.strict,
      redoErrors: options.redoErrors,
      ...(options.config === undefined ? {} : { config: options.config }),
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(options.maxCostUsd === undefined ? {} : { maxCostUsd: options.maxCostUsd }),
      ...(options.logs ? {} : { logging: false }),
      ...(io.signal ? { signal: io.signal } : {}),
      ...(executor ? { executor } : {}),
      onProgress: (progress) => view.update(progress),
      onNote: (message) => view.note(message),
    });
    view.end();
    io.stdout(io.scrub(summaryLines(summary)));
    if (options.queue && summary.stoppedBy === 'interrupt')
      say(
        'massgen batch: runs already on a worker finish there; the next run of this command collects them\n',
      );
    return exitCodeOf(summary);
  });
}
