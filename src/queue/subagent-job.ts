import { z } from 'zod';
import { SUBAGENT_ID } from '../subagents/spawn-arguments.js';

/**
 * A subagent of a run on a worker, as a job of its own (docs/subagents.md, "On a queue"). It carries
 * the parent's config as the parent job had it — its text, `${VAR}` unresolved, never a resolved key —
 * and what the subagent's run is made from: the spawning agent (its team is derived from that config
 * on the worker that takes the job), the task, the context files' contents, the type and the time
 * limit. Signed like every job.
 */

/** The job name of a subagent job (run jobs are `run`). */
export const SUBAGENT_JOB = 'subagent';

/**
 * Subagent jobs have their own queue beside the run queue, which every worker also takes with slots
 * of its own: parents holding every run slot never keep their subagents from starting.
 */
export const subagentQueueName = (queue: string) => `${queue}-subagents`;

const ContextFileSchema = z.union([
  z.object({ name: z.string().min(1).max(500), text: z.string() }),
  /** A file that is not UTF-8 text (an image): its bytes in base64. */
  z.object({ name: z.string().min(1).max(500), base64: z.string() }),
]);

export const SubagentJobDataSchema = z.object({
  v: z.literal(1),
  /** The parent job's config, as that job carried it. */
  config: z.object({ name: z.string().min(1), text: z.string().min(1) }),
  parent: z.object({
    /** The parent's queue job and run (its run id is null until the run has said it). */
    jobId: z.string().min(1),
    runId: z.string().nullable(),
    /** The spawning agent: the subagent's team is derived from it. */
    agentId: z.string().min(1).max(200),
  }),
  /** Also names its folder on the worker: only the manager's own ids pass. */
  subagentId: z.string().regex(SUBAGENT_ID),
  task: z.string().min(1),
  files: z
    .array(ContextFileSchema)
    .max(50)
    .default(() => []),
  type: z
    .object({
      name: z.string().min(1),
      description: z.string(),
      systemMessage: z.string(),
      backend: z.record(z.string(), z.unknown()).nullable(),
    })
    .nullable(),
  timeoutSeconds: z.number().positive(),
  logging: z.boolean().optional(),
  /** Its events go to the job's stream: the parent's worker forwards them into the parent's run. */
  stream: z.literal(true),
  sig: z.string().optional(),
});
export type SubagentJobData = z.input<typeof SubagentJobDataSchema>;

/** A context file as a job carries it: text when it is UTF-8, else base64. */
export function encodeContextFile(file: {
  name: string;
  data: Uint8Array;
}): z.input<typeof ContextFileSchema> {
  try {
    return { name: file.name, text: new TextDecoder('utf-8', { fatal: true }).decode(file.data) };
  } catch {
    return { name: file.name, base64: Buffer.from(file.data).toString('base64') };
  }
}

/** The file's bytes back, as the subagent's attachment. */
export function decodeContextFile(file: z.output<typeof ContextFileSchema>): {
  name: string;
  data: Uint8Array;
} {
  return {
    name: file.name,
    data:
      'text' in file
        ? new TextEncoder().encode(file.text)
        : new Uint8Array(Buffer.from(file.base64, 'base64')),
  };
}
