import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../logging/atomic-write.js';
import { describeError } from '../types/errors.js';
import { SubagentStateSchema } from '../types/subagent-events.js';
import { MAX_CONTEXT_FILES, SUBAGENT_ID, SUBAGENT_TYPE_NAME } from './spawn-arguments.js';

/**
 * A subagent's state and result as a small JSON file in the parent's log folder
 * (`subagents/<id>/subagent.json`), replaced atomically at every change, so a crash of the parent
 * (even `kill -9`) leaves either the previous state or the new one, never half of one.
 */
export const SubagentCheckpointSchema = z.object({
  version: z.literal(1),
  id: z.string().regex(SUBAGENT_ID),
  /** The agent that spawned it. */
  agentId: z.string().min(1).max(200),
  task: z.string().min(1).max(20_000),
  /** The task's context files (paths in the agent's workspace): read again when it is re-started. */
  contextFiles: z.array(z.string().min(1).max(1000)).max(MAX_CONTEXT_FILES).default([]),
  subagentType: z.string().regex(SUBAGENT_TYPE_NAME).nullable(),
  timeoutSeconds: z.number().positive().finite(),
  background: z.boolean(),
  state: SubagentStateSchema,
  answer: z.string().nullable(),
  costUsd: z.number().nonnegative().finite(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  /** The subagent's own log folder, when logging is on. */
  logDir: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /** The queue job running it, when its parent ran on a queue worker (docs/subagents.md). */
  jobId: z.string().max(500).nullable().default(null),
});
export type SubagentCheckpoint = z.output<typeof SubagentCheckpointSchema>;

/** `<parentLogDir>/subagents/<id>`: the subagent's checkpoint and its run's log folder. */
export function subagentDir(parentLogDir: string, id: string): string {
  return path.join(parentLogDir, 'subagents', id);
}

export const CHECKPOINT_FILE = 'subagent.json';

export async function writeCheckpoint(parentLogDir: string, checkpoint: SubagentCheckpoint): Promise<void> {
  const file = path.join(subagentDir(parentLogDir, checkpoint.id), CHECKPOINT_FILE);
  await writeFileAtomic(file, `${JSON.stringify(checkpoint, null, 2)}\n`);
}

/** The most bytes a checkpoint file may have (they are a few hundred; a task is at most 20 000 characters). */
export const MAX_CHECKPOINT_BYTES = 256 * 1024;

/**
 * The checkpoint in `dir`, or why it cannot be read: not a regular file (a link is not followed), too
 * large, not JSON, or not the checkpoint's shape.
 */
export async function readCheckpoint(
  dir: string,
): Promise<{ checkpoint: SubagentCheckpoint } | { problem: string }> {
  const file = path.join(dir, CHECKPOINT_FILE);
  let text: string;
  try {
    const info = await lstat(file);
    if (!info.isFile()) return { problem: `${CHECKPOINT_FILE} is not a regular file` };
    if (info.size > MAX_CHECKPOINT_BYTES) return { problem: `${CHECKPOINT_FILE} is larger than it can be` };
    text = await readFile(file, 'utf8');
  } catch (error) {
    return { problem: `${CHECKPOINT_FILE} cannot be read (${describeError(error)})` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: `${CHECKPOINT_FILE} is not JSON` };
  }
  const parsed = SubagentCheckpointSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { problem: `${CHECKPOINT_FILE}: ${issue?.path.join('.') || '(top level)'}: ${issue?.message}` };
  }
  return { checkpoint: parsed.data };
}
