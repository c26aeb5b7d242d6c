import os from 'node:os';
import { UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { parseConfigText, runMassGen, type Env, type MassGenConfig } from '../app/essentials.js';
import { configProblem, questionWithAttachments, trackOutcome } from '../batch/index.js';
import { CancelledError, TimeoutError, describeError } from '../types/errors.js';
import type { RunResult } from '../types/run-result.js';
import { JobEventPublisher, type StreamField } from './event-stream.js';
import {
  BULL_PREFIX,
  cancelChannel,
  cancelledKey,
  eventsKey,
  RunJobDataSchema,
  type RunJobResult,
} from './job-data.js';
import { notRunResult } from './not-run-result.js';
import { connectRedis, durableOptions, type QueueLocation } from './redis-connection.js';
import { redisLimiters } from './redis-rate-limiter.js';

/** Options of {@link startQueueWorker}. */
export interface QueueWorkerOptions {
  location: QueueLocation;
  /** Logs go to `<cwd>/.massgen/massgen_logs`; relative paths in received configs resolve here. */
  cwd: string;
  /** API keys and `${VAR}` values: this machine's own. */
  env: Env;
  /** Runs at once (default 4). */
  concurrency?: number;
  /** Run every job with this config file instead of the one it carries. */
  config?: string;
  /** Without a renewal for this long a job counts as stalled and runs elsewhere (default 30 s). */
  lockDurationMs?: number;
  /** How often this worker looks for stalled jobs (default 30 s). */
  stalledIntervalMs?: number;
  /** Per job, when the job names none: the run is stopped and the attempt fails. */
  timeoutMs?: number;
  /** Write run logs (default: what the job says, else the config's `ui.logging_enabled`). */
  logging?: boolean;
  /** Shown in result lines and `massgen queue status` (default `host:pid`). */
  name?: string;
  /** A job started or ended here (for a log line). */
  onJob?: (report: JobReport) => void;
  /** Connection trouble and the like: the worker carries on (ioredis reconnects). */
  onError?: (error: unknown) => void;
}

export type JobReport =
  | { jobId: string; what: 'started'; attempt: number }
  | { jobId: string; what: 'completed'; result: RunResult }
  | { jobId: string; what: 'failed' | 'returned'; message: string };

/** A running `massgen worker`. */
export interface QueueWorker {
  readonly name: string;
  /** Runs in progress. */
  readonly active: number;
  /** Takes no new job; resolves once the runs in progress have finished and everything is closed. */
  close(): Promise<void>;
  /** Cancels the runs in progress and puts their jobs back on the queue for another worker, then closes. */
  returnJobs(): Promise<void>;
}

interface ActiveRun {
  controller: AbortController;
  returning: boolean;
  timedOut: boolean;
}

/**
 * Takes run jobs from the queue and runs them here with `runMassGen`, exactly as a run in process:
 * keys from this machine's environment, logs in this machine's `.massgen/`, the config's `rate_limits`
 * shared with every other worker through Redis. A worker that dies leaves its jobs to BullMQ's
 * stalled-job check, which another worker runs: they run again there.
 *
 * @throws {ConfigError} when Redis cannot be reached or the worker's own config is invalid.
 */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorker> {
  const { location, cwd, env } = options;
  const name = options.name ?? `${os.hostname()}:${process.pid}`;
  const onError = options.onError ?? (() => {});
  if (options.config) {
    const problem = configProblem(options.config, cwd, env, true);
    if (problem) throw problem;
  }
  (await connectRedis(location)).disconnect();
  const connection = durableOptions(location);
  const redis = new Redis(connection);
  const subscriber = new Redis(connection);
  for (const client of [redis, subscriber]) client.on('error', onError);
  const limiters = redisLimiters({ redis, subscriber });
  const active = new Map<string, ActiveRun>();

  await subscriber.subscribe(cancelChannel(location.name));
  subscriber.on('message', (channel: string, jobId: string) => {
    if (channel === cancelChannel(location.name))
      active.get(jobId)?.controller.abort(new CancelledError('cancelled by the caller'));
  });

  /** One entry on a job's event stream, written now (for the end and failure markers). */
  const mark = async (jobId: string, field: StreamField, value: unknown) => {
    const publisher = new JobEventPublisher(redis, eventsKey(location.name, jobId), onError);
    publisher.push(field, value);
    await publisher.flush();
  };

  const processor = async (job: Job, token?: string, signal?: AbortSignal): Promise<RunJobResult> => {
    const started = performance.now();
    const jobId = job.id as string;
    const parsed = RunJobDataSchema.safeParse(job.data);
    if (!parsed.success)
      throw new UnrecoverableError(`not a massgen run job: ${describeError(parsed.error)}`);
    const data = parsed.data;
    if ((await redis.exists(cancelledKey(location.name, jobId))) === 1)
      return {
        result: notRunResult(data.question, '', 'cancelled before it started'),
        votes: {},
        costUsd: 0,
        worker: name,
        workMs: 0,
      };
    const run: ActiveRun = { controller: new AbortController(), returning: false, timedOut: false };
    active.set(jobId, run);
    const onAbort = () => run.controller.abort(new CancelledError('the job was cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    const timeoutMs = data.timeoutMs ?? options.timeoutMs;
    const timer =
      timeoutMs === undefined
        ? null
        : setTimeout(() => {
            run.timedOut = true;
            run.controller.abort(new TimeoutError(`the job timed out after ${timeoutMs / 1000} s`));
          }, timeoutMs);
    const publisher = data.stream
      ? new JobEventPublisher(redis, eventsKey(location.name, jobId), onError)
      : null;
    publisher?.push('a', { attempt: job.attemptsStarted, worker: name });
    options.onJob?.({ jobId, what: 'started', attempt: job.attemptsStarted });
    const tracker = trackOutcome(name);
    try {
      const config: MassGenConfig | string =
        options.config ?? parseConfigText(data.config.text, { source: data.config.name, env, cwd });
      const logging = options.logging ?? data.logging;
      const result = await runMassGen({
        question: questionWithAttachments(data.question, data.attachments),
        history: data.history,
        config,
        cwd,
        env,
        signal: run.controller.signal,
        limiters,
        onEvent: (event) => {
          tracker.onEvent(event);
          publisher?.push('e', event);
        },
        ...(logging === undefined ? {} : { logging }),
      });
      if (run.returning) {
        const message = `worker ${name} stopped: the run goes back to the queue`;
        publisher?.push('r', { message });
        await publisher?.flush();
        await job.moveToWait(token);
        options.onJob?.({ jobId, what: 'returned', message });
        throw new WaitingError();
      }
      if (run.timedOut)
        throw new Error(`the run took longer than the job's timeout (${(timeoutMs ?? 0) / 1000} s)`);
      await publisher?.flush();
      return { result, ...tracker.facts(), worker: name, workMs: performance.now() - started };
    } finally {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      active.delete(jobId);
    }
  };

  const worker = new Worker(location.name, processor, {
    connection,
    prefix: BULL_PREFIX,
    name,
    concurrency: options.concurrency ?? 4,
    lockDuration: options.lockDurationMs ?? 30_000,
    stalledInterval: options.stalledIntervalMs ?? 30_000,
    maxStalledCount: 1,
  });
  worker.on('error', onError);
  worker.on('completed', (job: Job, value: RunJobResult) => {
    options.onJob?.({ jobId: job.id as string, what: 'completed', result: value.result });
    if (job.data?.stream === true) void mark(job.id as string, 'end', value);
  });
  worker.on('failed', (job: Job | undefined, error: Error) => {
    if (!job) return;
    options.onJob?.({ jobId: job.id as string, what: 'failed', message: error.message });
    if (job.data?.stream !== true) return;
    // Final when no attempt is left; otherwise the job runs again after its backoff.
    void job
      .getState()
      .then((state) => mark(job.id as string, state === 'failed' ? 'fail' : 'r', { message: error.message }))
      .catch(onError);
  });
  await worker.waitUntilReady();

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      await worker.close();
      await limiters.close();
      redis.disconnect();
      subscriber.disconnect();
    })());
  return {
    name,
    get active() {
      return active.size;
    },
    close,
    async returnJobs() {
      for (const run of active.values()) {
        run.returning = true;
        run.controller.abort(new CancelledError('the worker is stopping'));
      }
      await close();
    },
  };
}
