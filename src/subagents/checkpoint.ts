import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../logging/atomic-write.js';
import { SubagentStateSchema } from '../types/subagent-events.js';

/**
 * A subagent's state and result as a small JSON file in the parent's log folder
 * (`subagents/<id>/subagent.json`), replaced atomically at every change, so a crash of the parent
 * (even `kill -9`) leaves either the previous state or the new one, never half of one.
 */
export const SubagentCheckpointSchema = z.object({
  version: z.literal(1),
  id: z.string(),
  /** The agent that spawned it. */
  agentId: z.string(),
  task: z.string(),
  subagentType: z.string().nullable(),
  timeoutSeconds: z.number().positive(),
  background: z.boolean(),
  state: SubagentStateSchema,
  answer: z.string().nullable(),
  costUsd: z.number().nonnegative(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  /** The subagent's own log folder, when logging is on. */
  logDir: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type SubagentCheckpoint = z.infer<typeof SubagentCheckpointSchema>;

/** `<parentLogDir>/subagents/<id>`: the subagent's checkpoint and its run's log folder. */
export function subagentDir(parentLogDir: string, id: string): string {
  return path.join(parentLogDir, 'subagents', id);
}

export const CHECKPOINT_FILE = 'subagent.json';

export async function writeCheckpoint(parentLogDir: string, checkpoint: SubagentCheckpoint): Promise<void> {
  const file = path.join(subagentDir(parentLogDir, checkpoint.id), CHECKPOINT_FILE);
  await writeFileAtomic(file, `${JSON.stringify(checkpoint, null, 2)}\n`);
}

/** The checkpoint in `dir`, or null when there is none or it does not parse. */
export async function readCheckpoint(dir: string): Promise<SubagentCheckpoint | null> {
  try {
    const text = await readFile(path.join(dir, CHECKPOINT_FILE), 'utf8');
    const parsed = SubagentCheckpointSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
