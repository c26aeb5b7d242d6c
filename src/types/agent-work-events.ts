import { z } from 'zod';

/**
 * How agents organise their own work, as run events (docs/events.md): an agent's task plan changed
 * (`task_plan.changed`, docs/task-plans.md), and an agent asked its peers or the human a question
 * and got an answer (`ask_others.asked` / `ask_others.answered`, docs/ask-others.md). Joined into
 * `RunEventSchema` in events.ts. Tools emit them through their registry (`ToolEventInput`).
 */

const base = {
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  ts: z.number(),
};
const agentBase = { ...base, agentId: z.string() };

export const TASK_STATUSES = ['pending', 'in_progress', 'completed', 'blocked'] as const;
export const TaskStatusSchema = z.enum(TASK_STATUSES);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

export const TASK_PRIORITIES = ['low', 'medium', 'high'] as const;
export const TaskPrioritySchema = z.enum(TASK_PRIORITIES);
export type TaskPriority = z.infer<typeof TaskPrioritySchema>;

/** One task of an agent's plan. */
export const TaskSchema = z.object({
  /** `^[A-Za-z0-9_-]{1,64}$`: safe in a file name, a Markdown line and a terminal. */
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  description: z.string(),
  status: TaskStatusSchema,
  priority: TaskPrioritySchema,
  /** Ids of tasks that must be completed first. */
  dependencies: z.array(z.string()),
  /** How the agent will check the task is really done (tests to run, what to look at). */
  verification: z.string().nullable(),
  /** What the agent said when it last changed the status (e.g. how it verified the work). */
  notes: z.string().nullable(),
});
export type Task = z.infer<typeof TaskSchema>;

/** An agent's task plan changed: the whole plan after the change (bounded by `max_tasks_per_plan`). */
export const TaskPlanChangedSchema = z.object({
  ...agentBase,
  type: z.literal('task_plan.changed'),
  /** The planning tool that changed it (`add_task`…), or `restored` for a plan carried over from the previous turn. */
  action: z.string(),
  tasks: z.array(TaskSchema),
});

/** Who an `ask_others` question goes to. */
export const AskOthersModeSchema = z.enum(['agents', 'human']);

/** An agent asked its peers (or the human) a question mid-turn. */
export const AskOthersAskedSchema = z.object({
  ...agentBase,
  type: z.literal('ask_others.asked'),
  /** Unique in the run; an answer names it. */
  questionId: z.string(),
  mode: AskOthersModeSchema,
  question: z.string(),
  /** The peers asked (agents mode), or empty for the human. */
  targets: z.array(z.string()),
  /** When the question stops waiting (ms since the epoch). */
  deadline: z.number(),
});

/** One answer to an `ask_others` question: a peer's, the human's, or none in time. */
export const AskOthersAnsweredSchema = z.object({
  ...agentBase,
  type: z.literal('ask_others.answered'),
  questionId: z.string(),
  /** The peer's id, `human`, or null when the question timed out or failed without an answer. */
  from: z.string().nullable(),
  /** The answer (secrets masked), or null without one. */
  answer: z.string().nullable(),
  /** `answered`, `timeout`, `failed` (the peer's call failed), `cancelled` (the run ended). */
  outcome: z.enum(['answered', 'timeout', 'failed', 'cancelled']),
  /** Where a human answer came from (`web`, `terminal`, `api`). */
  source: z.string().optional(),
});

export const agentWorkEventSchemas = [
  TaskPlanChangedSchema,
  AskOthersAskedSchema,
  AskOthersAnsweredSchema,
] as const;
