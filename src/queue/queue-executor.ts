import { createHash } from 'node:crypto';
import os from 'node:os';
import type { Env } from '../app/essentials.js';
import { failedOutcome, outcomeFrom, type BatchExecutor, type JobEnd } from '../batch/index.js';
import { within } from './bounded-wait.js';
import { assertNoSecrets, readConfigPayload, type ConfigPayload } from './config-payload.js';
import { safeIdPart, type RunJobData } from './job-data.js';
import type { AddOptions, QueueClient } from './queue-client.js';

/** Options of {@link queueExecutor}. */
export interface QueueExecutorOptions extends AddOptions {
  /** Connected with `{ events: true }`; closed with the executor. */
  client: QueueClient;
  cwd: string;
  /** This machine's environment: only to check configs and to know which secrets must stay here. */
  env: Env;
  /** The batch's output file (absolute): with the host name, it names the batch's jobs. */
  output: string;
  /** Write each run's log folder on its worker (default: each config's `ui.logging_enabled`). */
  logging?: boolean;
  /** Per job: a worker stops the run after this long and the attempt fails. */
  timeoutMs?: number;
}

/** A job that Redis loses more often than this (restarts without persistence) gets an error line. */
const MAX_READDS = 3;

/**
 * Runs a batch on queue workers (`massgen batch --queue`). Each question becomes a job whose id comes
 * from the batch's output file and the question's id, so a rerun after an interruption finds the jobs
 * the first run left: finished ones are collected (their lines were never written), running ones
 * awaited, failed ones retried — nothing runs twice. A job's result leaves Redis once its line is on disk;
 * a job that fails after its last attempt stays in the dead-letter list (`massgen queue status`). A job
 * that Redis loses (a restart without persistence) is added again; lines already written stay.
 */
export function queueExecutor(options: QueueExecutorOptions): BatchExecutor {
  const { client } = options;
  const payloads = new Map<string, ConfigPayload>();
  const batchKey = createHash('sha256')
    .update(`${os.hostname()}\0${options.output}`)
    .digest('hex')
    .slice(0, 12);
  const outstanding = new Set<string>();
  let stopping = false;

  return {
    // Jobs on the queue at once: enough to keep many workers busy, bounded for very large batches.
    defaultConcurrency: 1000,
    async prepare(configs) {
      for (const file of configs) payloads.set(file, await readConfigPayload(file, options.env, options.cwd));
    },
    async run(job, signal): Promise<JobEnd> {
      if (stopping || signal.aborted) return { kind: 'stopped' };
      const payload = payloads.get(job.config);
      if (!payload) throw new Error(`config not prepared: ${job.config}`);
      const data: RunJobData = {
        v: 1,
        question: job.item.question,
        attachments: job.attachments,
        config: { name: payload.name, text: payload.text },
        stream: false,
        ...(options.logging === undefined ? {} : { logging: options.logging }),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        batch: { key: batchKey, id: job.item.id },
      };
      assertNoSecrets(data, payload.secrets, `the question "${job.item.id}"`);
      const jobId = `b-${batchKey}-${safeIdPart(job.item.id)}`;
      const add = () => client.add(jobId, data, { ...options, keepCompleted: true });
      await add();
      outstanding.add(jobId);
      let onAbort = () => {};
      const aborted = new Promise<'aborted'>((resolve) => {
        onAbort = () => resolve('aborted');
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        let finish = await Promise.race([client.finished(jobId), aborted]);
        for (let readds = 0; finish !== 'aborted' && finish.kind === 'gone' && finish.lost; readds++) {
          if (readds === MAX_READDS)
            return {
              kind: 'done',
              outcome: failedOutcome(
                {
                  code: 'job_lost',
                  message: `Redis at ${client.location.label} lost this job ${readds + 1} times (restarted without persistence?) — run the batch again once Redis keeps its data`,
                },
                null,
                false,
              ),
            };
          await Promise.race([add(), aborted]);
          finish = await Promise.race([client.finished(jobId), aborted]);
        }
        if (finish === 'aborted') {
          // Interrupted: a job that has not started leaves the queue; a running one finishes on its
          // worker and the next run of the batch collects it. Not waiting long for a Redis that is gone.
          await within(client.removeIfWaiting(jobId), client.shutdownWaitMs, false);
          return { kind: 'stopped' };
        }
        if (finish.kind === 'gone') return { kind: 'stopped' };
        if (finish.kind === 'failed') {
          return {
            kind: 'done',
            // What its attempts cost was not counted: unknown, not zero.
            outcome: failedOutcome(
              {
                code: 'job_failed',
                message: `${finish.message} (after its last attempt; kept in the dead-letter list: massgen queue status)`,
              },
              null,
              false,
            ),
          };
        }
        const { result, votes, costUsd, costKnown, worker } = finish.value;
        return {
          kind: 'done',
          outcome: outcomeFrom(result, {
            votes,
            costUsd,
            worker,
            ...(costKnown === undefined ? {} : { costKnown }),
          }),
          written: () => client.forget(jobId),
        };
      } finally {
        outstanding.delete(jobId);
        signal.removeEventListener('abort', onAbort);
      }
    },
    async stopWaiting() {
      stopping = true;
      await within(
        Promise.all([...outstanding].map((jobId) => client.removeIfWaiting(jobId).catch(() => false))),
        client.shutdownWaitMs,
        [],
      );
    },
    async close() {
      await client.close();
    },
  };
}
