import { runMassGen, type Env, type MassGenOptions } from '../app/essentials.js';
import { validateConfig } from '../app/validate.js';
import { ConfigError, MassGenError, describeError } from '../types/errors.js';
import { RateLimiter, type CallLimiter, type CallLimiterFactory } from '../util/rate-limiter.js';
import { questionWithAttachments } from './attachments.js';
import type { BatchExecutor, BatchJob, JobEnd } from './executor.js';
import { failedOutcome, trackOutcome } from './result-line.js';

/** Options of {@link inProcessExecutor}. */
export interface InProcessExecutorOptions {
  /** Working directory: `.massgen/` lives here. */
  cwd: string;
  /** API keys and `${VAR}` values. */
  env: Env;
  /** Write each run's log folder (default: each config's `ui.logging_enabled`). */
  logging?: boolean;
  /** Everything else a run takes (a clock, scripted `agents` in tests, …). */
  runOptions?: Partial<Omit<MassGenOptions, 'question' | 'config' | 'signal' | 'onEvent'>>;
}

/**
 * One limiter per model for the whole batch: the config's `rate_limits` hold across the runs that
 * go on at once, not per run.
 */
export function sharedLimiters(): CallLimiterFactory {
  const byModel = new Map<string, CallLimiter>();
  return (model, limits) => {
    let limiter = byModel.get(model);
    if (!limiter) byModel.set(model, (limiter = new RateLimiter(limits)));
    return limiter;
  };
}

/** The first problem of a config that keeps it from running here, or null. */
export async function configProblem(
  file: string,
  cwd: string,
  env: Env,
  needKeys: boolean,
): Promise<ConfigError | null> {
  const report = await validateConfig(file, { cwd, env });
  // Missing keys and unset variables are warnings of `--validate` (facts of this machine): fatal
  // where the runs happen here; the other warnings never are.
  const keyProblems = report.warnings.filter(
    (w) => w.path.endsWith('.api_key') || /environment variable \S+ is not set/.test(w.message),
  );
  const [first] = report.valid ? (needKeys ? keyProblems : []) : report.errors;
  if (!first) return null;
  const where = first.message.includes(report.file) ? '' : `${report.file}: `;
  return new ConfigError(`${where}${first.message}`, first.hint ? { hint: first.hint } : {});
}

/** Runs each question in this process with `runMassGen`, as `massgen batch` does without `--queue`. */
export function inProcessExecutor(options: InProcessExecutorOptions): BatchExecutor {
  const limiters = sharedLimiters();
  return {
    defaultConcurrency: 4,
    async prepare(configs) {
      for (const file of configs) {
        // In this process the keys must be here too: a missing one would fail every run.
        const problem = await configProblem(file, options.cwd, options.env, true);
        if (problem) throw problem;
      }
    },
    async run(job: BatchJob, signal: AbortSignal): Promise<JobEnd> {
      const tracker = trackOutcome();
      try {
        const result = await runMassGen({
          limiters,
          ...options.runOptions,
          question: questionWithAttachments(job.item.question, job.attachments),
          config: job.config,
          cwd: options.cwd,
          env: options.env,
          signal,
          onEvent: tracker.onEvent,
          ...(options.logging === undefined ? {} : { logging: options.logging }),
        });
        if (signal.aborted && result.status === 'cancelled') return { kind: 'stopped' };
        return { kind: 'done', outcome: tracker.outcome(result) };
      } catch (error) {
        if (signal.aborted) return { kind: 'stopped' };
        const code = error instanceof MassGenError ? error.code : 'run_failed';
        return { kind: 'done', outcome: failedOutcome({ code, message: describeError(error) }) };
      }
    },
    async stopWaiting() {
      // Nothing waits here: the runner simply starts no more jobs.
    },
    async close() {},
  };
}
