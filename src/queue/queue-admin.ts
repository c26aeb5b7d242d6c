import { Queue } from 'bullmq';
import { ConfigError } from '../types/errors.js';
import { isRecord } from '../util/guards.js';
import { SHUTDOWN_WAIT_MS, within } from './bounded-wait.js';
import { BULL_PREFIX } from './job-data.js';
import { SIGNATURE_KEY, type JobSigner } from './job-signature.js';
import { QUEUE_SECRET_VAR } from './queue-secret.js';
import { connectRedis, durableOptions, type QueueLocation } from './redis-connection.js';

/** A job in the dead-letter list: failed after its last attempt. */
export interface DeadJob {
  id: string;
  /** The batch line's id, for jobs of `massgen batch`. */
  batchId: string | null;
  attempts: number;
  reason: string;
  /** ISO 8601. */
  failedAt: string | null;
}

/** What `massgen queue status` shows. */
export interface QueueStatus {
  queue: string;
  url: string;
  /**
   * Jobs waiting, running and delayed now; `completed`: jobs completed on this queue so far (counted
   * by the workers: a batch removes each job once it has its line); `failed`: the dead-letter list.
   */
  counts: { waiting: number; active: number; delayed: number; completed: number; failed: number };
  /** Workers connected now, by name (`host:pid`). */
  workers: string[];
  /** The most recent dead jobs (up to `limit`). */
  dead: DeadJob[];
}

/** Runs `use` with a BullMQ queue handle; one clear error when Redis is not there. */
async function withQueue<T>(location: QueueLocation, use: (queue: Queue) => Promise<T>): Promise<T> {
  (await connectRedis(location)).disconnect();
  const queue = new Queue(location.name, { connection: durableOptions(location), prefix: BULL_PREFIX });
  queue.on('error', () => {});
  try {
    return await use(queue);
  } finally {
    await within(queue.close(), SHUTDOWN_WAIT_MS, undefined);
    // Not awaited: a client dropped while it reconnects never announces its end (ioredis).
    void queue.disconnect().catch(() => {});
  }
}

/** Counts by state, connected workers and the dead-letter list. */
export function queueStatus(location: QueueLocation, limit = 20): Promise<QueueStatus> {
  return withQueue(location, async (queue) => {
    const counts = await queue.getJobCounts(
      'waiting',
      'prioritized',
      'active',
      'delayed',
      'completed',
      'failed',
    );
    const workers = new Set<string>();
    for (const client of await queue.getWorkers()) {
      const raw = client.rawname ?? '';
      const at = raw.indexOf(':w:');
      if (at >= 0) workers.add(raw.slice(at + 3));
    }
    const failed = await queue.getFailed(0, Math.max(0, limit - 1));
    const completed = (await queue.getMetrics('completed', 0, 0)).meta.count;
    return {
      queue: location.name,
      url: location.label,
      counts: {
        waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        // A completed job still kept (no worker counted it: an older worker) counts as well.
        completed: Math.max(completed, counts.completed ?? 0),
        failed: counts.failed ?? 0,
      },
      workers: [...workers].sort(),
      dead: failed.map((job) => {
        const batch = (job.data as { batch?: { id?: unknown } } | undefined)?.batch;
        return {
          id: String(job.id),
          batchId: typeof batch?.id === 'string' ? batch.id : null,
          attempts: job.attemptsMade,
          reason: job.failedReason ?? '',
          failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
        };
      }),
    };
  });
}

/** Options of {@link retryDeadJobs}. */
export interface RetryOptions {
  /** A new time limit per attempt (the job's data changes, so a signed job is signed again). */
  timeoutMs?: number;
  /** The queue secret: needed to change a signed job. */
  signer?: JobSigner | null;
}

/**
 * Puts dead jobs back on the queue with fresh attempts: the given ids, or all of them. Resolves with
 * the ids retried; an id that is not in the dead-letter list is reported in `missing`, and one whose
 * time limit could not be changed in `refused` with the reason.
 *
 * A new time limit changes the job's data, so a signed job is signed again — only after its present
 * signature is checked, so a job someone altered in Redis is never given a valid signature. An unsigned
 * job stays unsigned (only workers with their own --config run it).
 */
export function retryDeadJobs(
  location: QueueLocation,
  ids: readonly string[] = [],
  options: RetryOptions = {},
): Promise<{ retried: string[]; missing: string[]; refused: { id: string; reason: string }[] }> {
  return withQueue(location, async (queue) => {
    const retried: string[] = [];
    const missing: string[] = [];
    const refused: { id: string; reason: string }[] = [];
    const targets = ids.length > 0 ? ids : (await queue.getFailed(0, -1)).map((job) => String(job.id));
    for (const id of targets) {
      const job = await queue.getJob(id);
      if (!job || (await job.getState()) !== 'failed') {
        missing.push(id);
        continue;
      }
      if (options.timeoutMs !== undefined) {
        const data: unknown = job.data;
        if (!isRecord(data)) {
          refused.push({ id, reason: 'not a massgen run job' });
          continue;
        }
        const { [SIGNATURE_KEY]: signature, ...rest } = data;
        const changed = { ...rest, timeoutMs: options.timeoutMs };
        if (signature === undefined) await job.updateData(changed);
        else if (!options.signer) {
          throw new ConfigError(
            `job ${id} is signed: a new --job-timeout needs the queue secret to sign it again`,
            { hint: `set ${QUEUE_SECRET_VAR} or pass --queue-secret-file FILE, as for the batch` },
          );
        } else if (options.signer.verify(location.name, id, data) !== null) {
          refused.push({
            id,
            reason: 'its signature does not match (signed with another secret, or altered)',
          });
          continue;
        } else await job.updateData(options.signer.sign(location.name, id, changed));
      }
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      retried.push(id);
    }
    return { retried, missing, refused };
  });
}

/**
 * Removes every job that has not started (waiting or delayed); with `dead`, the dead-letter list too.
 * Runs in progress are left to finish.
 */
export function drainQueue(
  location: QueueLocation,
  options: { dead?: boolean } = {},
): Promise<{ waiting: number; dead: number }> {
  return withQueue(location, async (queue) => {
    const before = await queue.getJobCounts('waiting', 'prioritized', 'delayed');
    await queue.drain(true);
    const waiting = (before.waiting ?? 0) + (before.prioritized ?? 0) + (before.delayed ?? 0);
    const dead = options.dead ? (await queue.clean(0, 0, 'failed')).length : 0;
    return { waiting, dead };
  });
}
