import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents, type JobsOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { describeError } from '../types/errors.js';
import { SHUTDOWN_WAIT_MS, within } from './bounded-wait.js';
import {
  BULL_PREFIX,
  cancelChannel,
  cancelledKey,
  RUN_JOB,
  RunJobResultSchema,
  type RunJobData,
  type RunJobResult,
} from './job-data.js';
import type { JobSigner } from './job-signature.js';
import type { SUBAGENT_JOB, SubagentJobData } from './subagent-job.js';
import { connectRedis, durableOptions, type QueueLocation } from './redis-connection.js';
import { watchRedis, type RedisWatch } from './redis-watch.js';

/** How a job ended for good. */
export type JobFinish =
  | { kind: 'completed'; value: RunJobResult }
  | { kind: 'failed'; message: string }
  /**
   * Not in Redis any more: removed before it ran (drained, cancelled), or — `lost` — Redis lost its
   * data (a restart without persistence, a flush), and the job should be added again.
   */
  | { kind: 'gone'; lost: boolean };

/** Retries and how long finished jobs stay in Redis. */
export interface AddOptions {
  /** Attempts in all, counting the first (default 3). A worker that dies does not use one up. */
  attempts?: number;
  /** The first retry waits this long, each next one twice as long (default 5000). */
  backoffMs?: number;
  /** Keep a completed job until its producer removes it (a batch does, once its line is written). */
  keepCompleted?: boolean;
}

/** Jobs awaited for longer than this get their state read directly, in case an event was missed. */
const RECHECK_MS = 15_000;
/** The marker that tells a restarted, empty Redis from one whose jobs were removed (refreshed while up). */
const MARKER_TTL_SECONDS = 24 * 3600;

/** Options of {@link QueueClient.connect}. */
export interface QueueClientOptions {
  /** Listen for jobs ending, from now on: `finished()` needs it. */
  events?: boolean;
  /** Signs every job added (the workers check it); null or absent: jobs go unsigned. */
  signer?: JobSigner | null;
  /** Redis unreachable (throttled), back, or back without its data: one line each. */
  onNotice?: (line: string) => void;
}

/**
 * The producer's side of the queue: adds run jobs and learns how they end, from BullMQ's queue events
 * (with the job's state read directly as a fallback for events missed in a reconnect).
 */
export class QueueClient {
  private readonly waiters = new Map<string, { since: number; resolve: (finish: JobFinish) => void }>();
  private recheck: NodeJS.Timeout | null = null;
  /** Present in Redis as long as Redis keeps what this client added (see `dataLost`). */
  private readonly marker: string;
  private watch: RedisWatch | null = null;
  /** Jobs this client added and awaits or may await, and those of them a data loss took. */
  private readonly added = new Set<string>();
  private readonly lostIds = new Set<string>();
  private readonly notice: (line: string) => void;

  private constructor(
    readonly location: QueueLocation,
    /** Plain commands (cancel notices, reading streams through `duplicate()`). */
    readonly redis: Redis,
    readonly queue: Queue,
    private readonly events: QueueEvents | null,
    private readonly options: QueueClientOptions,
    /** Set on close: clients still reconnecting give up (see `durableOptions`). */
    private readonly lifecycle: { ending: boolean },
  ) {
    this.marker = `massgen:alive:${location.name}:${randomUUID()}`;
    this.notice = options.onNotice ?? (() => {});
  }

  /**
   * How long a shutdown step waits for Redis: a bounded time while it answers, none while it is known
   * to be unreachable (a Ctrl-C then ends at once).
   */
  get shutdownWaitMs(): number {
    return this.watch?.downSince === null ? SHUTDOWN_WAIT_MS : 0;
  }

  /**
   * Connects (one clear error when Redis is not there). With `events`, listens for jobs ending, from
   * now on: `finished()` needs it.
   */
  static async connect(location: QueueLocation, options: QueueClientOptions = {}): Promise<QueueClient> {
    const probe = await connectRedis(location);
    probe.disconnect();
    const lifecycle = { ending: false };
    const connection = durableOptions(location, () => lifecycle.ending);
    const redis = new Redis(connection);
    redis.on('error', () => {});
    const queue = new Queue(location.name, { connection, prefix: BULL_PREFIX });
    queue.on('error', () => {});
    let events: QueueEvents | null = null;
    if (options.events) {
      // From the stream's current end: events of earlier jobs with reused ids must not count.
      const last = (await redis.xrevrange(`${BULL_PREFIX}:${location.name}:events`, '+', '-', 'COUNT', 1))[0];
      events = new QueueEvents(location.name, {
        connection,
        prefix: BULL_PREFIX,
        lastEventId: last?.[0] ?? '0-0',
      });
      events.on('error', () => {});
      await events.waitUntilReady();
    }
    const client = new QueueClient(location, redis, queue, events, options, lifecycle);
    await redis.set(client.marker, '1', 'EX', MARKER_TTL_SECONDS);
    client.watch = watchRedis(redis, location, {
      say: client.notice,
      onBack: () => void client.afterOutage(),
    });
    events?.on('completed', ({ jobId, returnvalue }) => client.settle(jobId, completed(returnvalue)));
    events?.on('failed', ({ jobId, failedReason }) =>
      client.settle(jobId, { kind: 'failed', message: failedReason }),
    );
    events?.on('removed', ({ jobId }) => client.settle(jobId, { kind: 'gone', lost: false }));
    return client;
  }

  /**
   * Adds a run job (or a subagent job, `name`) under `jobId`, signed when this client has a signer. A job with that id already
   * there is left as it is (see `finished`).
   */
  async add(
    jobId: string,
    data: RunJobData | SubagentJobData,
    options: AddOptions = {},
    name: typeof RUN_JOB | typeof SUBAGENT_JOB = RUN_JOB,
  ): Promise<void> {
    const jobOptions: JobsOptions = {
      jobId,
      attempts: options.attempts ?? 3,
      backoff: { type: 'exponential', delay: options.backoffMs ?? 5_000 },
      // A kept job leaves once its producer has its result; a week is the bound if that never happens.
      removeOnComplete: { age: options.keepCompleted ? 7 * 24 * 3600 : 3600 },
      // Failed jobs are the dead-letter list: kept a week, for `massgen queue status|retry|drain`.
      removeOnFail: { age: 7 * 24 * 3600 },
    };
    const signer = this.options.signer;
    const signed = signer ? signer.sign(this.location.name, jobId, data) : data;
    this.lostIds.delete(jobId);
    this.added.add(jobId);
    await this.queue.add(name, signed, jobOptions);
  }

  /**
   * Whether Redis lost what this client put there (a restart without persistence, a flush): the
   * marker set at connect is gone. Said once per loss; the marker is set again for the next one.
   */
  private async dataLost(): Promise<boolean> {
    const kept = await this.redis.expire(this.marker, MARKER_TTL_SECONDS);
    if (kept === 1) return false;
    await this.redis.set(this.marker, '1', 'EX', MARKER_TTL_SECONDS);
    for (const jobId of this.added) this.lostIds.add(jobId);
    this.notice(
      `Redis at ${this.location.label} lost its data (restarted without persistence, or flushed): unfinished jobs are added again`,
    );
    return true;
  }

  /** Redis is back after an outage: a restart may have emptied it, so every awaited job is looked at now. */
  private async afterOutage(): Promise<void> {
    try {
      if (!(await this.dataLost())) return;
      for (const [jobId] of this.waiters)
        if (this.lostIds.has(jobId)) this.settle(jobId, { kind: 'gone', lost: true });
    } catch {
      // Gone again: the next reconnect looks again.
    }
  }

  /**
   * Resolves once the job has ended for good: completed, failed after its last attempt, or gone. A job
   * that had already failed when this is called (left by an earlier batch) is retried.
   */
  async finished(jobId: string): Promise<JobFinish> {
    if (!this.events) throw new Error('QueueClient.finished needs a client connected with { events: true }');
    const finish = new Promise<JobFinish>((resolve) =>
      this.waiters.set(jobId, { since: Date.now(), resolve }),
    );
    if (!this.recheck) {
      this.recheck = setInterval(() => void this.recheckStale(), RECHECK_MS);
      this.recheck.unref();
    }
    try {
      const state = await this.queue.getJobState(jobId);
      if (state === 'failed') {
        const job = await this.queue.getJob(jobId);
        await job?.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      } else if (state === 'completed' || state === 'unknown') {
        await this.check(jobId);
      }
    } catch {
      // Redis hiccuped: the job's events, or the periodic check, will still tell how it ends.
    }
    return finish;
  }

  /** How the job ended, read from Redis now; null while it waits or runs. */
  async ended(jobId: string): Promise<JobFinish | null> {
    const state = await this.queue.getJobState(jobId);
    if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return null;
    const job = state === 'unknown' ? undefined : await this.queue.getJob(jobId);
    if (!job) {
      await this.dataLost();
      const lost = this.lostIds.has(jobId);
      this.release(jobId);
      return { kind: 'gone', lost };
    }
    this.release(jobId);
    return state === 'completed' ? completed(job.returnvalue) : { kind: 'failed', message: job.failedReason };
  }

  /** The job's end is known: a later data loss no longer concerns it. */
  release(jobId: string): void {
    this.added.delete(jobId);
    this.lostIds.delete(jobId);
  }

  private async check(jobId: string): Promise<void> {
    const finish = await this.ended(jobId).catch(() => null);
    if (finish) this.settle(jobId, finish);
  }

  private async recheckStale(): Promise<void> {
    const now = Date.now();
    if (this.watch?.downSince !== null) return;
    for (const [jobId, waiter] of this.waiters) if (now - waiter.since >= RECHECK_MS) await this.check(jobId);
  }

  private settle(jobId: string, finish: JobFinish): void {
    const waiter = this.waiters.get(jobId);
    if (!waiter) return;
    this.waiters.delete(jobId);
    this.release(jobId);
    waiter.resolve(finish);
  }

  /** Workers connected to this queue now. */
  async workers(): Promise<number> {
    // A worker has several connections, each named after it: count the names.
    const clients = await this.queue.getWorkers().catch(() => []);
    return new Set(clients.map((client) => client.rawname ?? '')).size;
  }

  /** Removes a job that has not started (waiting or delayed). False when it runs (or is gone). */
  async removeIfWaiting(jobId: string): Promise<boolean> {
    const state = await this.queue.getJobState(jobId);
    if (state !== 'waiting' && state !== 'delayed' && state !== 'prioritized') return false;
    return (await this.queue.remove(jobId)) === 1;
  }

  /** Removes a finished job (its result has been taken); not waiting long for an unreachable Redis. */
  async forget(jobId: string): Promise<void> {
    await within(this.queue.remove(jobId), this.shutdownWaitMs, 0);
  }

  /**
   * Stops a job wherever it is: removed when it waits, else the worker running it is told to cancel
   * it (its run then ends as cancelled), and no worker will start it later.
   */
  async cancel(jobId: string): Promise<void> {
    await this.redis.set(cancelledKey(this.location.name, jobId), '1', 'EX', 3600);
    if (await this.removeIfWaiting(jobId).catch(() => false)) return;
    await this.redis.publish(cancelChannel(this.location.name), jobId);
  }

  /** Closes every connection, waiting a bounded time for an unreachable Redis, then dropping them. */
  async close(): Promise<void> {
    const wait = this.shutdownWaitMs;
    this.lifecycle.ending = true;
    if (this.recheck) clearInterval(this.recheck);
    this.watch?.stop();
    for (const [jobId] of this.waiters) this.settle(jobId, { kind: 'gone', lost: false });
    await within(this.redis.del(this.marker), wait, 0);
    await within(Promise.allSettled([this.events?.close(), this.queue.close()]), wait, undefined);
    // Whatever did not close in time stops reconnecting, so nothing keeps the process alive. Not
    // awaited: a client dropped while it reconnects never announces its end (ioredis).
    this.redis.disconnect();
    void this.events?.disconnect().catch(() => {});
    void this.queue.disconnect().catch(() => {});
  }
}

/** A return value as a finish: checked, since a worker of another version may have written it. */
function completed(value: unknown): JobFinish {
  const parsed = RunJobResultSchema.safeParse(typeof value === 'string' ? safeJson(value) : value);
  if (parsed.success) return { kind: 'completed', value: parsed.data };
  return {
    kind: 'failed',
    message: `the worker returned an unexpected result: ${describeError(parsed.error)}`,
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
