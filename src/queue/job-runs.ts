import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { UnrecoverableError, type Job } from 'bullmq';
import {
  collectRunSecrets,
  parseConfigText,
  type Env,
  type MassGenConfig,
  type MassGenOptions,
} from '../app/essentials.js';
import { questionWithAttachments } from '../batch/index.js';
import { childConfig } from '../subagents/child-run.js';
import { ConfigError, describeError } from '../types/errors.js';
import { RunJobDataSchema } from './job-data.js';
import type { QueueClient } from './queue-client.js';
import { decodeContextFile, SubagentJobDataSchema } from './subagent-job.js';
import { queuedSubagentLauncher } from './subagent-launcher.js';

/** The options of one job's run; the worker adds the environment, signal, limiters and events. */
export type JobRunOptions = Omit<MassGenOptions, 'env' | 'signal' | 'limiters' | 'onEvent' | 'logging'>;

/** What a worker runs for a job, read from its data. */
export interface JobRun {
  /** For a result line when it does not run. */
  question: string;
  /** Publish the run's events to the job's stream. */
  stream: boolean;
  timeoutMs?: number | undefined;
  logging?: boolean | undefined;
  /** The run's options, given its run id once its first event says it (parse errors: `ConfigError`). */
  options(runId: () => string | null): Promise<JobRunOptions>;
}

/** What the worker reads jobs with. */
export interface JobRunContext {
  cwd: string;
  env: Env;
  /** The worker's own config file (`massgen worker --config`): every job runs it. */
  config?: string | undefined;
  /** Where a run's subagents become jobs (the subagent queue), or null: they run in its process. */
  subagents: QueueClient | null;
}

/** The worker's own config, parsed, with the folder its relative paths resolve in. */
function ownConfig(file: string, context: JobRunContext): { config: MassGenConfig; baseDir: string } {
  const absolute = path.resolve(context.cwd, file);
  const baseDir = path.dirname(absolute);
  const text = readFileSync(absolute, 'utf8');
  return { config: parseConfigText(text, { source: absolute, env: context.env, cwd: baseDir }), baseDir };
}

/** The config a job runs: the worker's own, else the job's text (signed; `${VAR}`s from this machine). */
function jobConfig(
  carried: { name: string; text: string },
  context: JobRunContext,
): { config: MassGenConfig; baseDir: string } {
  if (context.config) return ownConfig(context.config, context);
  const { env, cwd } = context;
  return { config: parseConfigText(carried.text, { source: carried.name, env, cwd }), baseDir: cwd };
}

/**
 * Reads a job of the run queue (`kind: 'run'`) or of the subagent queue (`'subagent'`).
 *
 * @throws {UnrecoverableError} when its data is not such a job.
 */
export function readJob(job: Job, kind: 'run' | 'subagent', context: JobRunContext): JobRun {
  return kind === 'run' ? runJob(job, context) : subagentJob(job, context);
}

function runJob(job: Job, context: JobRunContext): JobRun {
  const parsed = RunJobDataSchema.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`not a massgen run job: ${describeError(parsed.error)}`);
  const data = parsed.data;
  return {
    question: data.question,
    stream: data.stream,
    timeoutMs: data.timeoutMs,
    logging: data.logging,
    options: async (runId) => {
      // The parsed config, when it is needed: to run the job's text, or to know the run's subagents.
      const team = context.subagents || !context.config ? jobConfig(data.config, context).config : null;
      const own = team?.orchestrator.coordination.enable_subagents ? team : null;
      return {
        question: questionWithAttachments(data.question, data.attachments),
        history: data.history,
        // The worker's own file as a path, so its relative paths resolve beside it.
        config: context.config ?? team ?? jobConfig(data.config, context).config,
        cwd: context.cwd,
        ...(context.subagents && own
          ? {
              subagentLauncher: queuedSubagentLauncher({
                client: context.subagents,
                config: data.config,
                secrets: collectRunSecrets(own, context.env),
                parentJobId: String(job.id),
                runId,
              }),
            }
          : {}),
      };
    },
  };
}

function subagentJob(job: Job, context: JobRunContext): JobRun {
  const parsed = SubagentJobDataSchema.safeParse(job.data);
  if (!parsed.success)
    throw new UnrecoverableError(`not a massgen subagent job: ${describeError(parsed.error)}`);
  const data = parsed.data;
  return {
    question: data.task,
    stream: true,
    // Its own time limit ends the run with its best answer; this stops a run that overruns it.
    timeoutMs: (data.timeoutSeconds + 30) * 1000,
    logging: data.logging,
    options: async () => {
      const parent = jobConfig(data.config, context);
      const { agentId } = data.parent;
      if (!parent.config.agents.some((agent) => agent.id === agentId))
        throw new ConfigError(`subagent job ${String(job.id)}: its config has no agent "${agentId}"`);
      const logRoot = path.join(context.cwd, '.massgen', 'massgen_logs');
      // Its work folder on this worker (the id is checked: `sa<n>-<hex>`), as it is under the
      // spawning agent's workspace in process. Nothing in it is trusted as code.
      const work = path.join(context.cwd, '.massgen', 'subagents', data.subagentId);
      await mkdir(work, { recursive: true });
      return {
        question: data.task,
        config: childConfig(parent, {
          agentId,
          type: data.type,
          logRoot: data.logging === false ? null : logRoot,
        }),
        cwd: work,
        envFiles: [],
        projectTrusted: false,
        orchestratorTimeoutSeconds: data.timeoutSeconds,
        logRoot,
        ...(data.files.length > 0 ? { attachments: data.files.map(decodeContextFile) } : {}),
      };
    },
  };
}
