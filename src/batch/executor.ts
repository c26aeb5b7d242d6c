import type { Attachment } from './attachments.js';
import type { BatchItem } from './input-lines.js';
import type { RunOutcome } from './result-line.js';

/** One question handed to an executor. */
export interface BatchJob {
  item: BatchItem;
  /** The item's attachments, read. */
  attachments: Attachment[];
  /** The config it runs: an absolute path or `@examples/NAME`. */
  config: string;
}

/** How a job ended: with an outcome to write, or stopped before it had one (it runs again on resume). */
export type JobEnd =
  | {
      kind: 'done';
      outcome: RunOutcome;
      /** Called once the line is on disk (a queue then forgets the job). */
      written?: () => Promise<void>;
    }
  | { kind: 'stopped' };

/**
 * Where a batch's runs execute: in this process (the default) or on queue workers. The batch runner
 * reads the input, skips what is done, keeps the cost and writes the lines; an executor only runs.
 */
export interface BatchExecutor {
  /** Jobs in flight at once when the caller does not say (`--concurrency`). */
  readonly defaultConcurrency: number;
  /**
   * Checks every config the batch uses before the first run; throws a `ConfigError` naming the file.
   * `inProcess` executors also need the API keys here; queue workers bring their own.
   */
  prepare(configs: readonly string[]): Promise<void>;
  /** Runs one job. When `signal` aborts, ends it as soon as it can ('stopped' unless it finished). */
  run(job: BatchJob, signal: AbortSignal): Promise<JobEnd>;
  /**
   * No new jobs will be handed over and those that have not started should not: jobs still waiting
   * (on a queue) end as 'stopped'; running ones finish.
   */
  stopWaiting(): Promise<void>;
  close(): Promise<void>;
}
