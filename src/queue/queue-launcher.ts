import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Env, MassGenOptions, RunLauncher } from '../app/essentials.js';
import { ConfigError, MassGenError } from '../types/errors.js';
import { RunEventSchema, type RunEvent } from '../types/events.js';
import type { RunResult } from '../types/run-result.js';
import { assertNoSecrets, readConfigPayload } from './config-payload.js';
import { readJobStream } from './event-stream.js';
import { eventsKey, RunJobResultSchema, type RunJobData } from './job-data.js';
import { notRunResult } from './not-run-result.js';
import type { AddOptions, QueueClient } from './queue-client.js';

/** Options of {@link queueLauncher}. */
export interface QueueLauncherOptions extends AddOptions {
  client: QueueClient;
  /** This machine's environment: only to check configs and to know which secrets must stay here. */
  env: Env;
  /** Per job: a worker stops the run after this long and the attempt fails. */
  timeoutMs?: number;
  /** Without a stream entry for this long, the job's state is read (a worker may have died). */
  idleCheckMs?: number;
}

const failure = (message: string) =>
  new MassGenError('run_failed', `the run failed on its worker: ${message}`);

/**
 * Runs go to queue workers (`massgen serve --queue`): each becomes a job carrying the question, the
 * history and the config's text, and its events come back through the job's Redis stream as the
 * worker produces them. A worker that dies mid-run is noticed by BullMQ's stalled-job check and the
 * run starts again on another worker: the stream then says so with a `run.warning` and goes on with the
 * new run's events. Aborting the signal, or leaving the stream early, cancels the job.
 */
export function queueLauncher(options: QueueLauncherOptions): RunLauncher {
  const { client } = options;
  return async (run: MassGenOptions) => {
    if (typeof run.config !== 'string')
      throw new ConfigError('a run on the queue needs its config as a file: workers receive the file’s text');
    const cwd = path.resolve(run.cwd ?? process.cwd());
    const payload = await readConfigPayload(path.resolve(cwd, run.config), options.env, cwd);
    const data: RunJobData = {
      v: 1,
      question: run.question,
      history: [...(run.history ?? [])],
      config: { name: payload.name, text: payload.text },
      stream: true,
      ...(run.logging === undefined ? {} : { logging: run.logging }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    };
    assertNoSecrets(data, payload.secrets, 'the request');
    const jobId = `s-${randomUUID()}`;
    const add = (id: string) => client.add(id, data, options);
    await add(jobId);
    return followJob(client, jobId, run, add, options.idleCheckMs ?? 5_000);
  };
}

/** A run that Redis loses more often than this (restarts without persistence) fails. */
const MAX_READDS = 3;

/**
 * A streamed job's events as they come (each also given to `run.onEvent`), then its result. A worker
 * that died mid-run shows as a `run.warning` before the next attempt's events; a job Redis lost is added
 * again with `add`. Aborting `run.signal`, or leaving early, cancels the job.
 *
 * @throws {MassGenError} `run_failed` when the job failed for good.
 */
export async function* followJob(
  client: QueueClient,
  firstJobId: string,
  run: Pick<MassGenOptions, 'question' | 'signal' | 'onEvent'>,
  add: (jobId: string) => Promise<void>,
  idleCheckMs: number,
): AsyncGenerator<RunEvent, RunResult, undefined> {
  const reader = client.redis.duplicate();
  reader.on('error', () => {});
  let jobId = firstJobId;
  const cancel = () => void client.cancel(jobId).catch(() => {});
  if (run.signal?.aborted) cancel();
  run.signal?.addEventListener('abort', cancel, { once: true });
  let finished = false;
  let last: RunEvent | null = null;
  let lostBecause: string | null = null;
  let readds = 0;
  try {
    // A job Redis lost is added again under a new id, so a stream of its own: the lost run may still
    // be running on its worker, writing to the old one.
    for (;;) {
      let lost = false;
      for await (const entry of readJobStream(reader, eventsKey(client.location.name, jobId), idleCheckMs)) {
        if (entry === null) {
          // Nothing for a while: a worker may have died after its job ended, before the stream did.
          const ended = await client.ended(jobId);
          if (ended === null) continue;
          lost = ended.kind === 'gone' && ended.lost;
          if (lost) break;
          finished = true;
          if (ended.kind === 'completed') return ended.value.result;
          if (ended.kind === 'failed') throw failure(ended.message);
          return notRunResult(
            run.question,
            'unknown',
            'the run was removed from the queue before it started',
          );
        }
        const value = entry.value as { message?: unknown; attempt?: unknown; worker?: unknown };
        if (entry.field === 'e') {
          const event = RunEventSchema.safeParse(entry.value);
          if (!event.success) continue;
          last = event.data;
          run.onEvent?.(event.data);
          yield event.data;
        } else if (entry.field === 'a' && last !== null) {
          // A later attempt: the earlier one's worker stopped, died or failed.
          const why = lostBecause ?? 'its worker stopped responding';
          const warning: RunEvent = {
            type: 'run.warning',
            runId: last.runId,
            seq: last.seq + 1,
            ts: Date.now(),
            code: 'run_restarted',
            message: `the run starts again on worker ${String(value.worker)} (attempt ${String(value.attempt)}): ${why}`,
          };
          lostBecause = null;
          run.onEvent?.(warning);
          yield warning;
        } else if (entry.field === 'r') {
          lostBecause = String(value.message);
        } else if (entry.field === 'end') {
          const result = RunJobResultSchema.safeParse(entry.value);
          finished = true;
          if (!result.success) throw failure('it returned an unexpected result');
          return result.data.result;
        } else if (entry.field === 'fail') {
          finished = true;
          throw failure(String(value.message));
        }
      }
      if (!lost) throw failure('its event stream ended');
      const because = `Redis at ${client.location.label} lost its data (restarted without persistence?)`;
      if (++readds > MAX_READDS) throw failure(`${because} ${readds} times`);
      lostBecause = because;
      client.release(jobId);
      jobId = `${firstJobId}-${readds}`;
      await add(jobId);
    }
  } finally {
    run.signal?.removeEventListener('abort', cancel);
    if (!finished) cancel();
    client.release(jobId);
    reader.disconnect();
  }
}
