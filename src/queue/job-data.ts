import { z } from 'zod';
import { ErrorInfoSchema, RunStatusSchema } from '../types/events.js';
import type { RunResult } from '../types/run-result.js';
import { TokenUsageSchema } from '../types/usage.js';

/**
 * What travels on the queue, checked with zod on both ends. A job carries the question and the config
 * as text with its `${VAR}` references unresolved — never an environment, a resolved key or a header:
 * each worker reads keys from its own environment (`massgen worker` checks the text for secrets before
 * anything is queued).
 */

/** BullMQ keys live under `massgen:q:<queue>:`; massgen's own under `massgen:<kind>:<queue>:`. */
export const BULL_PREFIX = 'massgen:q';
export const eventsKey = (queue: string, jobId: string) => `massgen:events:${queue}:${jobId}`;
export const cancelChannel = (queue: string) => `massgen:cancel:${queue}`;
export const cancelledKey = (queue: string, jobId: string) => `massgen:cancelled:${queue}:${jobId}`;

/** The job name every run job has. */
export const RUN_JOB = 'run';

export const RunJobDataSchema = z.object({
  /** Format version, so an old worker refuses a job it does not understand rather than misread it. */
  v: z.literal(1),
  question: z.string().min(1),
  attachments: z.array(z.object({ name: z.string(), text: z.string() })).default(() => []),
  history: z.array(z.object({ question: z.string(), answer: z.string() })).default(() => []),
  /** The config file's text, `${VAR}` unresolved; `name` (its file name) for messages. */
  config: z.object({ name: z.string().min(1), text: z.string().min(1) }),
  /** Publish the run's events to its stream (`serve --queue` streams them); a batch needs only the end. */
  stream: z.boolean().default(false),
  /** Write the run's log folder on the worker (default: the config's `ui.logging_enabled`). */
  logging: z.boolean().optional(),
  /** A worker stops the run after this long and the attempt fails (retried with backoff). */
  timeoutMs: z.number().int().positive().optional(),
  /** For people reading the queue: the batch (a hash of its output file) and the line's id. */
  batch: z.object({ key: z.string(), id: z.string() }).optional(),
  /** HMAC-SHA256 of everything else, made with the queue secret (see `job-signature.ts`). */
  sig: z.string().optional(),
});
export type RunJobData = z.input<typeof RunJobDataSchema>;

export const RunResultSchema = z.object({
  runId: z.string(),
  question: z.string(),
  status: RunStatusSchema,
  exitCode: z.number().int(),
  winnerId: z.string().nullable(),
  finalAnswer: z.string().nullable(),
  durationMs: z.number().nonnegative(),
  usage: z.record(z.string(), TokenUsageSchema),
  logDir: z.string().nullable(),
  answerFile: z.string().nullable(),
  workspaceDir: z.string().nullable(),
  error: ErrorInfoSchema.optional(),
}) satisfies z.ZodType<RunResult>;

/** A finished job's return value. */
export const RunJobResultSchema = z.object({
  result: RunResultSchema,
  /** Final tallies and dollars, which the result alone does not hold. */
  votes: z.record(z.string(), z.number()),
  costUsd: z.number().nonnegative(),
  /** False when a model of the run has no known price (`costUsd` is then only what is known). */
  costKnown: z.boolean().optional(),
  /** `host:pid` of the worker. */
  worker: z.string(),
  /** How long the worker spent on it (config, agents, run, logs), for the queue's overhead. */
  workMs: z.number().nonnegative(),
});
export type RunJobResult = z.infer<typeof RunJobResultSchema>;

/** A line's id inside a BullMQ job id, which may not contain `:`: percent-encoded (one-to-one). */
export const safeIdPart = (text: string) => encodeURIComponent(text);
