import { z } from 'zod';
import { defineTool, type Tool } from '../tools/define-tool.js';
import { customToolProvider } from '../tools/custom/index.js';
import type { ToolProvider, ToolProviderEvent } from '../tools/tool-provider.js';
import { TaskPrioritySchema, TaskStatusSchema } from '../types/agent-work-events.js';
import { describeError } from '../types/errors.js';
import {
  addTask,
  blockedTasks,
  createPlan,
  deleteTask,
  editTask,
  emptyPlan,
  planCounts,
  PlanError,
  readyTasks,
  updateTaskStatus,
  type PlanLimits,
  type TaskPlan,
} from './plan-graph.js';
import { loadPlan, savePlan } from './plan-files.js';

/** MassGen's nine planning tools, in the order they are offered. */
export const TASK_PLAN_TOOLS = [
  'create_task_plan',
  'add_task',
  'update_task_status',
  'edit_task',
  'get_task_plan',
  'delete_task',
  'get_ready_tasks',
  'get_blocked_tasks',
  'clear_task_plan',
] as const;

/** One agent's planning settings. */
export interface TaskPlanOptions extends PlanLimits {
  /** The agent's workspace: the plan is saved in `tasks/plan.json` there. Null: kept in memory only. */
  workspace: string | null;
  /** `task_planning_filesystem_mode`: also `tasks/plan.md`. */
  markdown: boolean;
  /** The previous turn's result in a session: its `tasks/plan.json` is where this turn's plan starts. */
  previousWorkspace?: string | null;
}

const dependencies = z
  .array(z.string())
  .max(1000)
  .optional()
  .describe('ids of tasks that must be completed first');
const TaskInputSchema = z.object({
  id: z.string().optional().describe('a short id (letters, digits, _ or -); default task_<n>'),
  description: z.string(),
  priority: TaskPrioritySchema.optional(),
  depends_on: dependencies,
  verification: z.string().optional().describe('how you will check the task is really done'),
});
const TaskIdSchema = z.object({ task_id: z.string() });
const NoArguments = z.object({});

/** The plan as the model reads it after each call: the tasks and what is ready now. */
function planSummary(plan: TaskPlan, note?: string): string {
  const counts = planCounts(plan);
  return JSON.stringify(
    {
      ...(note ? { note } : {}),
      counts: { total: plan.tasks.length, ...counts },
      ready: readyTasks(plan).map((t) => t.id),
      tasks: plan.tasks,
    },
    null,
    2,
  );
}

const toInput = (t: z.infer<typeof TaskInputSchema>) => ({
  id: t.id,
  description: t.description,
  priority: t.priority,
  dependencies: t.depends_on,
  verification: t.verification,
});

/**
 * The planning tools of one agent, as a tool provider: each change is checked by the pure plan
 * (`plan-graph.ts`), saved atomically in the workspace, then reported as `task_plan.changed`. A
 * refused change (a cycle, the task cap, an unknown id) is a tool error naming what to fix, and the
 * plan stays as it was.
 */
export function taskPlanToolProvider(options: TaskPlanOptions): ToolProvider {
  let plan: TaskPlan = emptyPlan();
  let report: ((event: ToolProviderEvent) => void) | null = null;
  /** Said once, with the first tool result, when the previous turn's plan could not be carried over. */
  let restoreProblem: string | null = null;

  /** Applies a change: saved first, so the plan in memory never runs ahead of the one on disk. */
  const commit = async (action: string, next: TaskPlan): Promise<void> => {
    if (options.workspace !== null) await savePlan(options.workspace, next, options.markdown);
    plan = next;
    report?.({ type: 'task_plan.changed', action, tasks: next.tasks });
  };
  const withNote = (text: string) => {
    if (restoreProblem === null) return text;
    const note = `The previous turn's plan was not carried over: ${restoreProblem}`;
    restoreProblem = null;
    return `${note}\n${text}`;
  };
  /** Runs one tool body; plan refusals and save failures become messages for the model. */
  const guarded =
    <A>(body: (args: A) => Promise<string> | string) =>
    async (args: A): Promise<string> => {
      try {
        return withNote(await body(args));
      } catch (error) {
        if (error instanceof PlanError) throw error;
        throw new PlanError(`the plan could not be saved: ${describeError(error)}`);
      }
    };

  const tools: Tool[] = [
    defineTool({
      name: 'create_task_plan',
      description:
        'Create your task plan for this work, replacing any plan you had: a list of tasks (a description, optional id, priority, depends_on ids and how you will verify it). Dependencies that form a cycle are refused.',
      parameters: z.object({ tasks: z.array(z.union([z.string(), TaskInputSchema])).max(1000) }),
      execute: guarded(async ({ tasks }) => {
        const next = createPlan(
          tasks.map((t) => (typeof t === 'string' ? { description: t } : toInput(t))),
          options,
        );
        await commit('create_task_plan', next);
        return planSummary(next);
      }),
    }),
    defineTool({
      name: 'add_task',
      description: 'Add one task to your plan (after the others); depends_on names tasks it waits for.',
      parameters: TaskInputSchema,
      execute: guarded(async (args) => {
        const { plan: next, task } = addTask(plan, toInput(args), options);
        await commit('add_task', next);
        return planSummary(next, `added ${task.id}`);
      }),
    }),
    defineTool({
      name: 'update_task_status',
      description:
        'Set a task to pending, in_progress, completed or blocked, with notes (for completed: how you verified it). A task cannot start or complete before its dependencies are completed.',
      parameters: TaskIdSchema.extend({
        status: TaskStatusSchema,
        completion_notes: z.string().optional(),
      }),
      execute: guarded(async ({ task_id, status, completion_notes }) => {
        const next = updateTaskStatus(plan, task_id, status, completion_notes);
        await commit('update_task_status', next);
        return planSummary(next);
      }),
    }),
    defineTool({
      name: 'edit_task',
      description: "Change a task's description, priority, depends_on or verification.",
      parameters: TaskIdSchema.extend({
        description: z.string().optional(),
        priority: TaskPrioritySchema.optional(),
        depends_on: dependencies,
        verification: z.string().optional(),
      }),
      execute: guarded(async ({ task_id, depends_on, ...edit }) => {
        const next = editTask(plan, task_id, { ...edit, dependencies: depends_on });
        await commit('edit_task', next);
        return planSummary(next);
      }),
    }),
    defineTool({
      name: 'get_task_plan',
      description: 'Show your whole task plan with each task’s status and what is ready now.',
      parameters: NoArguments,
      readOnly: true,
      execute: guarded(() => planSummary(plan)),
    }),
    defineTool({
      name: 'delete_task',
      description: 'Remove a task from your plan (refused while other tasks depend on it).',
      parameters: TaskIdSchema,
      execute: guarded(async ({ task_id }) => {
        const next = deleteTask(plan, task_id);
        await commit('delete_task', next);
        return planSummary(next, `deleted ${task_id}`);
      }),
    }),
    defineTool({
      name: 'get_ready_tasks',
      description: 'The pending tasks whose dependencies are all completed, highest priority first.',
      parameters: NoArguments,
      readOnly: true,
      execute: guarded(() => JSON.stringify({ ready: readyTasks(plan) }, null, 2)),
    }),
    defineTool({
      name: 'get_blocked_tasks',
      description:
        'The unfinished tasks that wait for others (or are marked blocked), with what they wait for.',
      parameters: NoArguments,
      readOnly: true,
      execute: guarded(() =>
        JSON.stringify(
          {
            blocked: blockedTasks(plan).map(({ task, waitingFor }) => ({ ...task, waiting_for: waitingFor })),
          },
          null,
          2,
        ),
      ),
    }),
    defineTool({
      name: 'clear_task_plan',
      description: 'Delete every task of your plan.',
      parameters: NoArguments,
      execute: guarded(async () => {
        await commit('clear_task_plan', emptyPlan());
        return 'The task plan is empty.';
      }),
    }),
  ];

  const inner = customToolProvider(tools, 'task_plan');
  // The tools change only the agent's own plan, inside its workspace: planning mode lets them run.
  const definitions = inner
    .tools()
    .map((d) => (d.annotations?.readOnly ? d : { ...d, annotations: { readOnly: false, confined: true } }));
  return {
    ...inner,
    tools: () => definitions,
    async start(context) {
      report = context.report;
      if (!options.previousWorkspace) return;
      try {
        const restored = await loadPlan(options.previousWorkspace, options);
        if (restored && restored.tasks.length > 0) await commit('restored', restored);
      } catch (error) {
        restoreProblem = describeError(error);
      }
    },
  };
}
