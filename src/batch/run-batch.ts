import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { isExampleRef, loadDotEnv, resolveExampleRef } from '../app/essentials.js';
import { ConfigError, MassGenError, describeError } from '../types/errors.js';
import type { CommonRunOptions } from '../types/run-options.js';
import { readAttachments } from './attachments.js';
import type { BatchExecutor, BatchJob, JobEnd } from './executor.js';
import { inProcessExecutor } from './in-process-executor.js';
import { readBatchInput, type BatchItem, type InputProblem } from './input-lines.js';
import { openResultFile } from './result-file.js';
import { failedOutcome, lineFailed, type BatchResultLine } from './result-line.js';

/** Options of {@link runBatch}: the common ones (`signal` stops the batch), and a batch's own. */
export interface RunBatchOptions extends CommonRunOptions {
  /** The questions: a JSON Lines file (see `readBatchInput`). */
  input: string;
  /** The results: a JSON Lines file, appended to; ids already in it are skipped (resume). */
  output: string;
  /** The config of lines without their own: a path or `@examples/NAME`. */
  config?: string;
  /** Runs at once (default: the executor's; 4 in-process, every job at once on a queue). */
  concurrency?: number;
  /** A malformed input line is an error instead of being skipped. */
  strict?: boolean;
  /** Run again the questions whose lines say they failed. */
  redoErrors?: boolean;
  /** Start no new run once the batch (earlier lines included) has cost this many dollars. */
  maxCostUsd?: number;
  /** Where runs execute. Default: this process (`inProcessExecutor`). */
  executor?: BatchExecutor;
  /** Called once the work is known, then after every line written. */
  onProgress?: (progress: BatchProgress) => void;
  /** Called for what the user should know: skipped input lines, a repaired output file. */
  onNote?: (message: string) => void;
  /** Milliseconds for rates and ETAs. Default: `performance.now`. */
  now?: () => number;
}

/** Where a batch stands. Counts include lines from earlier runs of the same output file. */
export interface BatchProgress {
  /** Questions in the input (valid lines). */
  total: number;
  /** Questions with a line in the output. */
  done: number;
  /** Lines this run wrote. */
  written: number;
  /** Lines that did not answer (an error, or a run that did not complete). */
  failed: number;
  running: number;
  tokens: number;
  /** Dollars of the lines whose cost is known (and the known part of the others). */
  costUsd: number;
  /** Lines whose cost is not wholly known (a model without a price): `costUsd` is then a lower bound. */
  costUnknown: number;
  elapsedMs: number;
  /** The line just written, if that is why this report came. */
  line?: BatchResultLine;
}

/** What {@link runBatch} did. */
export interface BatchSummary extends BatchProgress {
  output: string;
  /** Input lines skipped as malformed. */
  malformed: InputProblem[];
  /** Already in the output when the batch started. */
  resumed: number;
  /** Questions left without a line (they run on the next invocation). */
  notRun: number;
  /** Why questions were left: interrupted, or the cost limit was reached. */
  stoppedBy: 'interrupt' | 'cost' | null;
}

/** The absolute file a config reference names. */
function configFile(ref: string, cwd: string): string {
  return isExampleRef(ref) ? resolveExampleRef(ref) : path.resolve(cwd, ref);
}

/**
 * Runs every question of a JSON Lines file and appends one result line per question to the output,
 * each flushed as soon as its run ends. Resumable: ids already in the output are skipped, so a batch
 * that was interrupted (Ctrl-C, a crash, the cost limit) loses nothing it finished.
 *
 * Never rejects for a failed run (its line records the error); rejects with a `ConfigError` for bad
 * input before anything runs.
 *
 * @example
 * ```ts
 * import { runBatch } from 'massgen';
 * const summary = await runBatch({ config: 'team.yaml', input: 'questions.jsonl', output: 'results.jsonl' });
 * console.log(`${summary.written} answered, ${summary.failed} failed, $${summary.costUsd.toFixed(4)}`);
 * ```
 */
export async function runBatch(options: RunBatchOptions): Promise<BatchSummary> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const env = options.env ?? loadDotEnv(cwd);
  const note = options.onNote ?? (() => {});
  const input = readBatchInput(options.input, { cwd, ...(options.strict ? { strict: true } : {}) });
  for (const problem of input.skipped) note(`${options.input}:${problem.line}: ${problem.message} — skipped`);

  const defaultConfig = options.config === undefined ? undefined : configFile(options.config, cwd);
  const missing = input.items.find((item) => item.config === undefined && defaultConfig === undefined);
  if (missing) {
    throw new ConfigError(`${options.input}:${missing.line}: no config for this question`, {
      hint: 'pass --config FILE, or give the line a "config" of its own',
    });
  }
  const configOf = (item: BatchItem) =>
    item.config ? configFile(item.config, cwd) : (defaultConfig as string);
  const configs = [...new Set(input.items.map(configOf))];

  const executor =
    options.executor ??
    inProcessExecutor({
      cwd,
      env,
      ...(options.logging === undefined ? {} : { logging: options.logging }),
    });
  const results = await openResultFile(path.resolve(cwd, options.output), {
    ...(options.redoErrors ? { redoErrors: true } : {}),
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await results.close();
    if (!options.executor) await executor.close();
  };
  try {
    for (const message of results.notes) note(`${options.output}: ${message}`);
    const pending = input.items.filter((item) => !results.done.has(item.id));
    const resumed = input.items.length - pending.length;
    if (pending.length > 0) await executor.prepare(configs);

    const progress: BatchProgress = {
      total: input.items.length,
      done: resumed,
      written: 0,
      failed: results.previous.failed,
      running: 0,
      tokens: results.previous.tokens,
      costUsd: results.previous.costUsd,
      costUnknown: results.previous.costUnknown,
      elapsedMs: 0,
    };
    const report = (line?: BatchResultLine) =>
      options.onProgress?.({ ...progress, elapsedMs: now() - started, ...(line ? { line } : {}) });
    report();

    const budget = options.maxCostUsd;
    let stoppedBy: BatchSummary['stoppedBy'] = null;
    const stop = (why: 'interrupt' | 'cost') => {
      if (stoppedBy !== null) return;
      stoppedBy = why;
      void executor.stopWaiting().catch(() => {});
    };
    if (budget !== undefined && progress.costUsd >= budget && pending.length > 0) stop('cost');
    // One signal for every job in flight (each listens to it): as many listeners as jobs at once.
    const interrupt = new AbortController();
    setMaxListeners(0, interrupt.signal);
    const signal = interrupt.signal;
    const onAbort = () => {
      stop('interrupt');
      interrupt.abort(options.signal?.reason);
    };
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const write = async (item: BatchItem, end: JobEnd) => {
      if (end.kind !== 'done') return;
      const line: BatchResultLine = {
        id: item.id,
        question: item.question,
        ...end.outcome,
        finished_at: new Date().toISOString(),
      };
      if (!(await results.append(line))) return;
      await end.written?.().catch(() => {});
      progress.done++;
      progress.written++;
      progress.tokens += line.tokens.total;
      progress.costUsd += line.cost_usd;
      if (!line.cost_known) {
        if (budget !== undefined && progress.costUnknown === 0)
          note(
            `${line.id}: its cost is unknown (no known price for its model, or failed attempts) — --max-cost-usd counts only known costs`,
          );
        progress.costUnknown++;
      }
      if (lineFailed(line)) progress.failed++;
      report(line);
      if (budget !== undefined && progress.costUsd >= budget) stop('cost');
    };

    const runOne = async (item: BatchItem): Promise<void> => {
      let end: JobEnd;
      try {
        const job: BatchJob = {
          item,
          attachments: await readAttachments(item.attachments),
          config: configOf(item),
        };
        end = await executor.run(job, signal);
      } catch (error) {
        const code = error instanceof MassGenError ? error.code : 'run_failed';
        end = { kind: 'done', outcome: failedOutcome({ code, message: describeError(error) }) };
      }
      await write(item, end);
    };

    // A fixed number of lanes, each taking the next question until none is left or the batch stops.
    let next = 0;
    // A result that cannot be written (a full disk) stops the batch: nothing new starts, the runs in
    // progress end, and the error names the file. Their questions run again when the batch is rerun.
    let writeFailure: { error: unknown } | undefined;
    const lanes = Math.max(1, Math.min(options.concurrency ?? executor.defaultConcurrency, pending.length));
    await Promise.all(
      Array.from({ length: pending.length === 0 ? 0 : lanes }, async () => {
        while (stoppedBy === null && writeFailure === undefined && next < pending.length) {
          const item = pending[next++] as BatchItem;
          progress.running++;
          try {
            await runOne(item);
          } catch (error) {
            writeFailure ??= { error };
          } finally {
            progress.running--;
          }
        }
      }),
    );
    options.signal?.removeEventListener('abort', onAbort);
    if (writeFailure !== undefined) throw writeFailure.error;
    await close();
    return {
      ...progress,
      running: 0,
      elapsedMs: now() - started,
      output: results.path,
      malformed: input.skipped,
      resumed,
      notRun: input.items.length - progress.done,
      stoppedBy,
    };
  } finally {
    await close();
  }
}
