import type { Env } from './env.js';

/**
 * The options every way of running massgen shares — `runMassGen`, `runBatch`, `runEval` and the
 * queue worker (`startQueueWorker`): where it runs, with which keys, whether it logs, and how it is
 * stopped. Each entry point extends it with its own (the worker requires `cwd` and `env`, and has no
 * signal: it is closed).
 */
export interface CommonRunOptions {
  /**
   * The working folder: `.env` and `.massgen/` (the run logs) live here, and relative paths resolve
   * here. Default: `process.cwd()`.
   */
  cwd?: string;
  /** API keys and `${VAR}` values. Default: the process environment plus `<cwd>/.env`. */
  env?: Env;
  /** Write the run logs, `.massgen/massgen_logs/…` (default: the config's `ui.logging_enabled`). */
  logging?: boolean;
  /**
   * Stops the work: a run is cancelled (its stream still ends with `run.finished`); a batch starts
   * nothing new, cancels its runs and keeps every finished line.
   */
  signal?: AbortSignal;
}
