import type { Redis } from 'ioredis';

/**
 * A run's events on their way back from a worker: one Redis stream per job (`XADD` by the worker,
 * `XREAD` from the start by whoever waits for the run). Chosen over pub/sub, which drops whatever is
 * published while a reader is not subscribed, and over BullMQ's job progress, whose single events
 * stream is shared by every job and trimmed: a per-job stream keeps every event of the run in order,
 * can be read late or re-read after a reconnect, and expires on its own an hour after its last write.
 *
 * Entries have one field: `a` (an attempt starts: `{attempt, worker}`), `e` (a `RunEvent`), `r` (the
 * attempt ended without a result and the job runs again: `{message}`), then `end` (the job's return
 * value) or `fail` (the job failed for good: `{message}`).
 */
export type StreamField = 'a' | 'e' | 'r' | 'end' | 'fail';

/** How long a run's stream is kept after its last entry. */
export const STREAM_TTL_SECONDS = 3600;
/** An upper bound on entries per run (a runaway stream must not fill Redis). */
const MAX_ENTRIES = 200_000;

/** Writes one job's stream. Entries go out in order, batched per event-loop turn in one pipeline. */
export class JobEventPublisher {
  private buffer: [StreamField, string][] = [];
  private chain: Promise<void> = Promise.resolve();
  private scheduled = false;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  push(field: StreamField, value: unknown): void {
    this.buffer.push([field, JSON.stringify(value)]);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.chain = this.chain.then(() => this.write());
    });
  }

  /** Resolves once everything pushed so far is in Redis (or failed to get there). */
  async flush(): Promise<void> {
    this.chain = this.chain.then(() => this.write());
    await this.chain;
  }

  private async write(): Promise<void> {
    const entries = this.buffer.splice(0);
    if (entries.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const [field, value] of entries)
      pipeline.xadd(this.key, 'MAXLEN', '~', MAX_ENTRIES, '*', field, value);
    pipeline.expire(this.key, STREAM_TTL_SECONDS);
    try {
      const replies = await pipeline.exec();
      const failed = replies?.find(([error]) => error !== null);
      if (failed) this.onError(failed[0]);
    } catch (error) {
      // A stream that misses events still ends (the job's state is the fallback): never fail the run.
      this.onError(error);
    }
  }
}

/** One entry read back. */
export interface StreamEntry {
  field: StreamField;
  value: unknown;
}

/**
 * Reads a job's stream from its first entry, waiting for more (`XREAD BLOCK`). Yields entries in order;
 * after `idleMs` without one it yields `null` so the caller can check the job's state (a worker that
 * died before writing its last entry). `redis` must be a connection of its own: it blocks.
 */
export async function* readJobStream(
  redis: Redis,
  key: string,
  idleMs = 5_000,
): AsyncGenerator<StreamEntry | null, void, undefined> {
  let lastId = '0-0';
  for (;;) {
    const reply = (await redis.xread('COUNT', 1000, 'BLOCK', idleMs, 'STREAMS', key, lastId)) as
      [string, [string, string[]][]][] | null;
    const entries = reply?.[0]?.[1] ?? [];
    if (entries.length === 0) {
      yield null;
      continue;
    }
    for (const [id, fields] of entries) {
      lastId = id;
      const [field, value] = fields;
      if (field === undefined || value === undefined) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        continue;
      }
      yield { field: field as StreamField, value: parsed };
    }
  }
}
