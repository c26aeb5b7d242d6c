import type { ChildLauncher, ChildOutcome } from '../types/subagent-launch.js';
import { describeError } from '../types/errors.js';
import { assertNoSecrets } from './config-payload.js';
import { safeIdPart } from './job-data.js';
import type { QueueClient } from './queue-client.js';
import { followJob } from './queue-launcher.js';
import { encodeContextFile, SUBAGENT_JOB, type SubagentJobData } from './subagent-job.js';

/** Options of {@link queuedSubagentLauncher}: the parent job a worker runs. */
export interface QueuedSubagentOptions {
  /** Connected to the subagent queue (`<name>-subagents`), signing with the queue secret. */
  client: QueueClient;
  /** The parent job's config as it came, `${VAR}` unresolved. */
  config: { name: string; text: string };
  /** Every secret the parent's run knows: a job holding one is not added. */
  secrets: readonly string[];
  parentJobId: string;
  /** The parent run's id, once its first event has said it. */
  runId(): string | null;
  logging?: boolean | undefined;
  /** Without a stream entry for this long, the job's state is read (default 5 s). */
  idleCheckMs?: number;
}

/**
 * Starts each subagent of a run on a worker as a queue job of its own, which any worker may take, and
 * forwards the job's events into the parent run as they come (the subagent manager tags them
 * `subagent.event`). Cancelling the subagent (its signal) cancels the job; a job's run can't be
 * steered from here, so its handle has no `steer`.
 */
export function queuedSubagentLauncher(options: QueuedSubagentOptions): ChildLauncher {
  const { client } = options;
  return async (launch) => {
    const data: SubagentJobData = {
      v: 1,
      config: options.config,
      parent: { jobId: options.parentJobId, runId: options.runId(), agentId: launch.agentId },
      subagentId: launch.id,
      task: launch.task,
      files: launch.files.map(encodeContextFile),
      type: launch.type && {
        name: launch.type.name,
        description: launch.type.description,
        systemMessage: launch.type.systemMessage,
        backend: launch.type.backend,
      },
      timeoutSeconds: launch.timeoutSeconds,
      stream: true,
      ...(options.logging === undefined ? {} : { logging: options.logging }),
    };
    const what = `subagent ${launch.id}'s job`;
    assertNoSecrets(data, options.secrets, what);
    // A file that travels as base64 is looked at as bytes: a key in it is ASCII there too.
    for (const file of launch.files)
      assertNoSecrets(Buffer.from(file.data).toString('latin1'), options.secrets, `${what} (${file.name})`);
    const jobId = `${safeIdPart(options.parentJobId)}.${launch.id}`;
    // A worker that dies mid-run costs one attempt; a subagent's own time limit bounds them all.
    const add = (id: string) => client.add(id, data, { attempts: 2, backoffMs: 1_000 }, SUBAGENT_JOB);
    await add(jobId);
    let costUsd: number | null = null;
    const done = (async (): Promise<ChildOutcome> => {
      const events = followJob(
        client,
        jobId,
        {
          question: launch.task,
          signal: launch.signal,
          onEvent: (event) => {
            if (event.type === 'run.finished')
              costUsd = Object.values(event.costUsd).reduce((a, b) => a + b, 0);
            launch.onEvent(event);
          },
        },
        add,
        options.idleCheckMs ?? 5_000,
      );
      let step = await events.next();
      while (!step.done) step = await events.next();
      const result = step.value;
      return {
        state: result.status,
        answer: result.finalAnswer,
        costUsd,
        ...(result.error ? { error: result.error } : {}),
      };
    })().catch((error: unknown): ChildOutcome => ({
      state: 'failed',
      answer: null,
      costUsd,
      error: { code: 'run_failed', message: describeError(error) },
    }));
    return { steer: null, jobId, done };
  };
}
