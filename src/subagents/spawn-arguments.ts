import { z } from 'zod';

/** The most tasks one `spawn_subagents` call may carry, whatever the concurrency limit says. */
export const MAX_TASKS_PER_CALL = 10;
/** The most context files one task may carry. */
export const MAX_CONTEXT_FILES = 20;
/** The most bytes of one context file (larger files are refused, not cut). */
export const MAX_CONTEXT_FILE_BYTES = 256 * 1024;

/** A subagent id as this run makes them; anything else is refused before any lookup. */
export const SUBAGENT_ID = /^sa\d{1,4}-[0-9a-f]{8}$/;

/** A `SUBAGENT.md` type's name as a task may give it. */
export const SUBAGENT_TYPE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const SubagentTaskSchema = z.strictObject({
  task: z.string().trim().min(1).max(20_000).describe('What the subagent should do, self-contained.'),
  context_files: z
    .array(z.string().min(1).max(1000))
    .max(MAX_CONTEXT_FILES)
    .optional()
    .describe('Files of your workspace (relative paths) the subagent reads with its task.'),
  subagent_type: z
    .string()
    .regex(SUBAGENT_TYPE_NAME)
    .optional()
    .describe('A typed subagent (e.g. researcher, critic, builder): its instructions and team.'),
  timeout_seconds: z
    .number()
    .positive()
    .optional()
    .describe("The subagent's own time limit (clamped by the run's min and max)."),
});

/** `spawn_subagents`' arguments. Strict: an unknown key (such as a `depth`) is refused. */
export const SpawnArgumentsSchema = z.strictObject({
  tasks: z.array(SubagentTaskSchema).min(1).max(MAX_TASKS_PER_CALL),
  background: z
    .boolean()
    .default(false)
    .describe('true: return ids at once and collect results later with subagent_result.'),
});
export type SpawnArguments = z.output<typeof SpawnArgumentsSchema>;
export type SubagentTask = SpawnArguments['tasks'][number];

const IdSchema = z.string().min(1).max(100).describe('A subagent id from spawn_subagents or list_subagents.');

export const ResultArgumentsSchema = z.strictObject({
  id: IdSchema,
  wait_seconds: z
    .number()
    .min(0)
    .default(0)
    .describe('Wait up to this long for a running subagent to finish (0: answer at once).'),
});

export const MessageArgumentsSchema = z.strictObject({
  id: IdSchema,
  text: z.string().trim().min(1).max(4000),
});

export const IdArgumentsSchema = z.strictObject({ id: IdSchema });
