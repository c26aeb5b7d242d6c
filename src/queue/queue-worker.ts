import os from 'node:os';
import { MetricsTime, UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { runMassGen, type Env } from '../app/essentials.js';
import { configProblem, trackOutcome } from '../batch/index.js';
import { CancelledError, ConfigError, TimeoutError, describeError } from '../types/errors.js';
import type { RunResult } from '../types/run-result.js';
import type { CommonRunOptions } from '../types/run-options.js';
import { SHUTDOWN_WAIT_MS, within } from './bounded-wait.js';
import { JobEventPublisher, type StreamField } from './event-stream.js';
import { BULL_PREFIX, cancelChannel, cancelledKey, eventsKey, type RunJobResult } from './job-data.js';
import { readJob } from './job-runs.js';
import type { JobSigner } from './job-signature.js';
import { QueueClient } from './queue-client.js';
import { subagentQueueName } from './subagent-job.js';
import { notRunResult } from './not-run-result.js';
import { QUEUE_SECRET_VAR } from './queue-secret.js';
import { connectRedis, durableOptions, isConnectionError, type QueueLocation } from './redis-connection.js';
import { redisLimiters } from './redis-rate-limiter.js';
import { watchRedis } from './redis-watch.js';

/**
 * Options of {@link startQueueWorker}: the common ones — `cwd` (logs go to its
 * `.massgen/massgen_logs`, relative paths in received configs resolve there) and `env` (this
 * machine's own) required; no signal, a worker is closed — and a worker's own.
 */
export interface QueueWorkerOptions extends Omit<CommonRunOptions, 'signal'> {
  location: QueueLocation;
  cwd: string;
  env: Env;
  /** Runs at once (default 4). */
  concurrency?: number;
  /**
   * Subagent jobs at once (default: `concurrency`): slots of their own, on the subagent queue, so
   * parents holding every run slot never keep their subagents from starting.
   */
  subagentConcurrency?: number;
  /**
   * Run every job with this config file; the config text a job carries is never read. Without it, a
   * job's own config runs only when the job is signed with `signer`'s secret.
   */
  config?: string;
  /** The queue secret: every job must carry a valid signature made with it, or it fails unrun. */
  signer?: JobSigner | null;
  /** Attempts a job gets at most, whatever it asks for (default 5). */
  maxAttempts?: number;
  /** Without a renewal for this long a job counts as stalled and runs elsewhere (default 30 s). */
  lockDurationMs?: number;
  /** How often this worker looks for stalled jobs (default 30 s). */
  stalledIntervalMs?: number;
  /** Per job, when the job names none: the run is stopped and the attempt fails. */
  timeoutMs?: number;
  /** Shown in result lines and `massgen queue status` (default `host:pid`). */
  name?: string;
  /** A job started or ended here (for a log line). */
  onJob?: (report: JobReport) => void;
  /** Trouble other than Redis being unreachable: the worker carries on. */
  onError?: (error: unknown) => void;
  /** Redis unreachable (throttled) or back: one line each. */
  onNotice?: (line: string) => void;
}

export type JobReport =
  | { jobId: string; what: 'started'; attempt: number }
  | { jobId: string; what: 'completed'; result: RunResult }
  | { jobId: string; what: 'failed' | 'returned'; message: string }
  /** Failed without running: unsigned, badly signed, or not a run job. */
  | { jobId: string; what: 'refused'; message: string };

/** A running `massgen worker`. */
export interface QueueWorker {
  readonly name: string;
  /** Runs in progress. */
  readonly active: number;
  /** Takes no new job; resolves once the runs in progress have finished and everything is closed. */
  close(): Promise<void>;
  /** Cancels the runs in progress and puts their jobs back on the queue for another worker, then closes. */
  returnJobs(): Promise<void>;
  /** When Redis became unreachable (ms since the epoch), or null while it is reachable. */
  readonly downSince: number | null;
}

interface ActiveRun {
  controller: AbortController;
  returning: boolean;
  timedOut: boolean;
}

/**
 * BullMQ's worker, with a way out when Redis is gone: its own `close()` then never finishes (it
 * waits for connections that cannot close), and its lock renewal timer would keep the process alive.
 */
class RunWorker extends Worker {
  /** Stops what `close()` would have stopped had Redis answered: the stalled check and lock renewal. */
  async abandon(): Promise<void> {
    await this.pause(true);
    await this.lockManager.close();
  }
}

/** Attempts a job gets at most unless the worker says otherwise. */
export const DEFAULT_MAX_ATTEMPTS = 5;

/** Why a job is refused before anything of it is read, or null when this worker may run it. */
function refusal(job: Job, queue: string, signer: JobSigner | null | undefined): string | null {
  if (!signer) return null;
  const problem = signer.verify(queue, String(job.id), job.data);
  if (problem === 'unsigned')
    return `refused: the job is not signed — this worker runs only jobs signed with its queue secret (${QUEUE_SECRET_VAR} or --queue-secret-file on the batch or server that adds them)`;
  if (problem === 'mismatch')
    return 'refused: the job’s signature does not match — it was signed with another queue secret, or its data was changed after signing';
  return null;
}

/**
 * What a failed attempt becomes: a config error, or the last attempt this worker allows, ends the job
 * at once (BullMQ's `UnrecoverableError`); anything else is retried as the job asks.
 */
function attemptError(error: unknown, job: Job, maxAttempts: number): unknown {
  if (error instanceof WaitingError || error instanceof UnrecoverableError) return error;
  if (error instanceof ConfigError) {
    const hint = error.hint ? ` (${error.hint})` : '';
    return new UnrecoverableError(`config error, not retried: ${describeError(error)}${hint}`);
  }
  const asked = job.opts.attempts ?? 1;
  if (asked > maxAttempts && job.attemptsMade + 1 >= maxAttempts)
    return new UnrecoverableError(
      `${describeError(error)} (attempt ${job.attemptsMade + 1}: the job asked for ${asked}, this worker allows ${maxAttempts})`,
    );
  return error;
}

/**
 * Takes run jobs from the queue and runs them here with `runMassGen`, exactly as a run in process:
 * keys from this machine's environment, logs in this machine's `.massgen/`, the config's `rate_limits`
 * shared with every other worker through Redis. A worker that dies leaves its jobs to BullMQ's
 * stalled-job check, which another worker runs: they run again there.
 *
 * Whoever can write to Redis can add jobs, so a worker runs only configs it trusts: its own
 * (`config`), or the config of a job signed with the queue secret (`signer`). With a secret, every job
 * must be signed; an unsigned or badly signed one fails at once, unrun.
 *
 * @throws {ConfigError} when Redis cannot be reached, the worker's own config is invalid, or it has
 *   neither a config nor a secret.
 */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorker> {
  const { location, cwd } = options;
  const name = options.name ?? `${os.hostname()}:${process.pid}`;
  const onError = options.onError ?? (() => {});
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!options.config && !options.signer)
    throw new ConfigError(
      `massgen worker runs only configs it trusts: give it --config FILE (every job runs your team), or the queue secret (${QUEUE_SECRET_VAR} or --queue-secret-file FILE) that the batch or server signs its jobs with`,
    );
  // The runs never see the queue secret (a config's ${VAR} or a command's environment).
  const env = Object.fromEntries(Object.entries(options.env).filter(([key]) => key !== QUEUE_SECRET_VAR));
  if (options.config) {
    const problem = await configProblem(options.config, cwd, env, true);
    if (problem) throw problem;
  }
  (await connectRedis(location)).disconnect();
  const lifecycle = { ending: false };
  const connection = durableOptions(location, () => lifecycle.ending);
  const redis = new Redis(connection);
  const subscriber = new Redis(connection);
  for (const client of [redis, subscriber]) client.on('error', () => {});
  const watch = watchRedis(redis, location, { say: options.onNotice ?? (() => {}) });
  // While Redis is unreachable every connection reports it, again and again: the watch says it once.
  const reportError = (error: unknown) => {
    if (watch.downSince === null && !isConnectionError(error)) onError(error);
  };
  const limiters = redisLimiters({ redis, subscriber });
  // Runs in progress on either queue, by `<queue>/<job id>`.
  const active = new Map<string, ActiveRun>();
  let idle: (() => void) | null = null;
  const subagentQueue = subagentQueueName(location.name);
  // A run's subagents become jobs of the subagent queue, signed with the same secret.
  const subagents = await QueueClient.connect(
    { ...location, name: subagentQueue },
    { signer: options.signer ?? null, ...(options.onNotice ? { onNotice: options.onNotice } : {}) },
  );

  await subscriber.subscribe(cancelChannel(location.name), cancelChannel(subagentQueue));
  subscriber.on('message', (channel: string, jobId: string) => {
    for (const queue of [location.name, subagentQueue])
      if (channel === cancelChannel(queue))
        active.get(`${queue}/${jobId}`)?.controller.abort(new CancelledError('cancelled by the caller'));
  });

  /** One entry on a job's event stream, written now (for the end and failure markers). */
  const mark = async (queue: string, jobId: string, field: StreamField, value: unknown) => {
    const publisher = new JobEventPublisher(redis, eventsKey(queue, jobId), reportError);
    publisher.push(field, value);
    await publisher.flush();
  };

  const processorOf =
    (queue: string) =>
    async (job: Job, token?: string, signal?: AbortSignal): Promise<RunJobResult> => {
      const started = performance.now();
      const jobId = job.id as string;
      const refused = refusal(job, queue, options.signer);
      if (refused) throw new UnrecoverableError(refused);
      if (job.attemptsMade >= maxAttempts)
        throw new UnrecoverableError(`out of attempts: this worker allows ${maxAttempts}`);
      const data = readJob(job, queue === location.name ? 'run' : 'subagent', {
        cwd,
        env,
        config: options.config,
        subagents,
      });
      if ((await redis.exists(cancelledKey(queue, jobId))) === 1)
        return {
          result: notRunResult(data.question, '', 'cancelled before it started'),
          votes: {},
          costUsd: 0,
          worker: name,
          workMs: 0,
        };
      const run: ActiveRun = { controller: new AbortController(), returning: false, timedOut: false };
      const key = `${queue}/${jobId}`;
      active.set(key, run);
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
        ? new JobEventPublisher(redis, eventsKey(queue, jobId), reportError)
        : null;
      publisher?.push('a', { attempt: job.attemptsStarted, worker: name });
      options.onJob?.({ jobId, what: 'started', attempt: job.attemptsStarted });
      const tracker = trackOutcome(name);
      try {
        let runId: string | null = null;
        const own = await data.options(() => runId);
        const logging = options.logging ?? data.logging;
        const result = await runMassGen({
          ...own,
          env,
          signal: run.controller.signal,
          limiters,
          onEvent: (event) => {
            runId ??= event.runId;
            tracker.onEvent(event);
            publisher?.push('e', event);
          },
          ...(logging === undefined ? {} : { logging }),
        });
        // Writes wait for an unreachable Redis a bounded time (ioredis sends them, in order, if it returns).
        const flushed = () => within(publisher?.flush() ?? Promise.resolve(), SHUTDOWN_WAIT_MS, undefined);
        if (run.returning) {
          const message = `worker ${name} stopped: the run goes back to the queue`;
          publisher?.push('r', { message });
          await flushed();
          await within(job.moveToWait(token), SHUTDOWN_WAIT_MS, undefined);
          options.onJob?.({ jobId, what: 'returned', message });
          throw new WaitingError();
        }
        if (run.timedOut)
          throw new Error(`the run took longer than the job's timeout (${(timeoutMs ?? 0) / 1000} s)`);
        await flushed();
        return { result, ...tracker.facts(), worker: name, workMs: performance.now() - started };
      } catch (error) {
        throw attemptError(error, job, maxAttempts);
      } finally {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        active.delete(key);
        if (active.size === 0) idle?.();
      }
    };

  const startWorker = async (queue: string, concurrency: number) => {
    const worker = new RunWorker(queue, processorOf(queue), {
      connection,
      prefix: BULL_PREFIX,
      name,
      concurrency,
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      maxStalledCount: 1,
      // Counts every completed job, for `massgen queue status` (a batch removes each once it has its line).
      metrics: { maxDataPoints: MetricsTime.ONE_HOUR },
    });
    worker.on('error', reportError);
    worker.on('completed', (job: Job, value: RunJobResult) => {
      options.onJob?.({ jobId: job.id as string, what: 'completed', result: value.result });
      if (job.data?.stream === true) void mark(queue, job.id as string, 'end', value);
    });
    worker.on('failed', (job: Job | undefined, error: Error) => {
      if (!job) return;
      const refused = error.message.startsWith('refused: ');
      options.onJob?.({
        jobId: job.id as string,
        what: refused ? 'refused' : 'failed',
        message: error.message,
      });
      if (job.data?.stream !== true) return;
      // Final when no attempt is left; otherwise the job runs again after its backoff.
      void job
        .getState()
        .then((state) =>
          mark(queue, job.id as string, state === 'failed' ? 'fail' : 'r', { message: error.message }),
        )
        .catch(reportError);
    });
    await worker.waitUntilReady();
    return worker;
  };
  const concurrency = options.concurrency ?? 4;
  const workers = [
    await startWorker(location.name, concurrency),
    await startWorker(subagentQueue, options.subagentConcurrency ?? concurrency),
  ];

  const runsDone = () =>
    new Promise<void>((resolve) => {
      if (active.size === 0) resolve();
      else idle = resolve;
    });
  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      const closed = Promise.all(workers.map((worker) => worker.close()));
      // The runs in progress finish however long they take (a second stop cancels them)…
      await runsDone();
      // …then a connection that has lost Redis stops trying (its waiting commands fail), so BullMQ's
      // close, which waits on them, ends too: within a bound, whether Redis is there or gone.
      lifecycle.ending = true;
      if (
        !(await within(
          closed.then(() => true),
          SHUTDOWN_WAIT_MS,
          false,
        ))
      )
        await Promise.all(workers.map((worker) => worker.abandon()));
      watch.stop();
      await within(limiters.close(), SHUTDOWN_WAIT_MS, undefined);
      await subagents.close();
      redis.disconnect();
      subscriber.disconnect();
      // Not awaited: with Redis gone it waits for an end that an ioredis client never announces
      // while it reconnects; dropping the socket is all that matters here.
      for (const worker of workers) void worker.disconnect().catch(() => {});
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
    get downSince() {
      return watch.downSince;
    },
  };
}
