/**
 * What `massgen batch` and `massgen eval` do around their runs, kept in one place so the two commands
 * report progress, queue connections and failures the same way: a progress view on stderr, an optional
 * queue executor (`--queue`), and errors printed with their hint and mapped to an exit code.
 */
import path from 'node:path';
import { isExampleRef, resolveExampleDataRef, type Env } from '../app/essentials.js';
import type { Write } from '../app/plain-display.js';
import type { BatchExecutor } from '../batch/index.js';
import { MassGenError, describeError, exitCodeForError } from '../types/errors.js';
import { createBatchProgress } from './batch-progress.js';

/** What a batch-shaped command needs from the process. */
export interface BatchCommandIo {
  cwd: string;
  env: Env;
  stdout: Write;
  stderr: Write;
  /** Ctrl-C: nothing new starts, runs in progress stop, finished lines stay. */
  signal?: AbortSignal;
  stderrIsTTY?: boolean;
  columns?: number;
  /** Masks secrets in quoted text, and makes it inert for the terminal (`setUpSubcommand`'s `scrub`). */
  scrub: (text: string) => string;
}

/** `--input` / `--dataset`: a file, or a bundled one (`@examples/demo/qa.jsonl`). */
export const dataFile = (ref: string): string => (isExampleRef(ref) ? resolveExampleDataRef(ref) : ref);

/** The `--queue` options both commands take. */
export interface QueueOptions {
  queue?: string;
  queueName: string;
  attempts: number;
  backoff: number;
  jobTimeout?: number;
  /** The secret that signs jobs (default: `MASSGEN_QUEUE_SECRET`). */
  queueSecretFile?: string;
}

/** What the command body gets: scrubbed stderr, the progress view, and a way to hand over an executor. */
export interface BatchShell {
  say: (text: string) => void;
  view: ReturnType<typeof createBatchProgress>;
  /** Connects the queue executor for `--queue`; it is closed when the command ends, whatever happens. */
  connectQueue: (
    options: QueueOptions & { queue: string },
    run: { output: string; logging?: boolean },
  ) => Promise<{ executor: BatchExecutor; name: string; label: string; workers: () => Promise<number> }>;
}

/**
 * Runs `body` with a progress view on stderr. The view is ended before the body's result is printed
 * (the body ends it) or on an error; an error is printed with its hint and becomes its exit code.
 */
export async function runBatchShell(
  io: BatchCommandIo,
  body: (shell: BatchShell) => Promise<number>,
): Promise<number> {
  const say = (text: string) => io.stderr(io.scrub(text));
  // The view's own frame (a carriage return, an erase-line) goes out as it is; what it quotes from the
  // runs is scrubbed (and, in the CLI, made inert).
  const view = createBatchProgress(io.stderr, {
    isTTY: io.stderrIsTTY === true,
    ...(io.columns ? { width: io.columns } : {}),
    quote: io.scrub,
  });
  let executor: BatchExecutor | undefined;
  const connectQueue: BatchShell['connectQueue'] = async (options, run) => {
    // Loaded only with --queue: a run in process never loads bullmq or ioredis.
    const { connectProducer, queueExecutor } = await import('../queue/index.js');
    const client = await connectProducer({
      ...options,
      env: io.env,
      cwd: io.cwd,
      events: true,
      onNotice: (line) => view.note(line),
    });
    executor = queueExecutor({
      client,
      cwd: io.cwd,
      env: io.env,
      output: path.resolve(io.cwd, run.output),
      attempts: options.attempts,
      backoffMs: options.backoff * 1000,
      ...(options.jobTimeout === undefined ? {} : { timeoutMs: options.jobTimeout * 1000 }),
      ...(run.logging === undefined ? {} : { logging: run.logging }),
    });
    const { name, label } = client.location;
    return { executor, name, label, workers: () => client.workers() };
  };
  try {
    return await body({ say, view, connectQueue });
  } catch (error) {
    view.end();
    say(`massgen: error: ${describeError(error)}\n`);
    if (error instanceof MassGenError && error.hint) say(`hint: ${error.hint}\n`);
    return exitCodeForError(error);
  } finally {
    await executor?.close().catch(() => {});
  }
}
