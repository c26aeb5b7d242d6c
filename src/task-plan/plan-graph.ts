/**
 * An agent's task plan as a pure value: tasks with ids, dependencies, priority, status and a
 * verification note, and the graph questions asked of it (which tasks are ready, which are blocked,
 * whether a dependency would close a cycle). No I/O: the tools (`plan-tools.ts`) save the result.
 * Every change returns a new plan or a {@link PlanError} whose message the model reads.
 */

import type { Task, TaskPriority, TaskStatus } from '../types/agent-work-events.js';

export type { Task, TaskPriority, TaskStatus };

/** A whole plan: tasks in the order they were planned. */
export interface TaskPlan {
  tasks: Task[];
}

/** Bounds that hold whatever a (possibly prompt-injected) model asks for. */
export interface PlanLimits {
  /** Most tasks in one plan (`max_tasks_per_plan`). */
  maxTasks: number;
}

/** The longest description, verification or note kept, in characters. */
export const MAX_TASK_TEXT = 2000;

const TASK_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A change the plan refuses; `message` is one line for the model. */
export class PlanError extends Error {
  override readonly name = 'PlanError';
}

/** A task as a tool gives it: only the description is required. */
export interface TaskInput {
  id?: string | undefined;
  description: string;
  priority?: TaskPriority | undefined;
  dependencies?: readonly string[] | undefined;
  verification?: string | null | undefined;
}

export const emptyPlan = (): TaskPlan => ({ tasks: [] });

function checkId(id: string): void {
  if (!TASK_ID.test(id)) {
    throw new PlanError(
      `task id ${JSON.stringify(id.slice(0, 80))} is not allowed: use 1-64 letters, digits, "_" or "-"`,
    );
  }
}

function checkText(text: string, what: string): string {
  const trimmed = text.trim();
  if (trimmed === '') throw new PlanError(`${what} is empty: describe the task in a sentence`);
  if (trimmed.length > MAX_TASK_TEXT) {
    throw new PlanError(`${what} has ${trimmed.length} characters: keep it under ${MAX_TASK_TEXT}`);
  }
  return trimmed;
}

function optionalText(text: string | undefined | null, what: string): string | null {
  return text === undefined || text === null || text.trim() === '' ? null : checkText(text, what);
}

/** The first free id of the form `task_<n>`. */
function nextId(taken: ReadonlySet<string>): string {
  for (let n = 1; ; n++) if (!taken.has(`task_${n}`)) return `task_${n}`;
}

function taskOf(plan: TaskPlan, id: string): Task {
  const task = plan.tasks.find((t) => t.id === id);
  if (!task) {
    const known = plan.tasks.map((t) => t.id);
    throw new PlanError(
      `no task "${id.slice(0, 80)}" in the plan${known.length > 0 ? ` (tasks: ${known.slice(0, 20).join(', ')})` : ' (the plan is empty)'}`,
    );
  }
  return task;
}

/**
 * A dependency cycle among `tasks`, as the ids around it (first id repeated at the end), or null.
 * Depth-first with colours; dependencies on unknown ids are ignored here (checked elsewhere).
 */
export function findCycle(tasks: readonly Task[]): string[] | null {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const colour = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (id: string): string[] | null => {
    colour.set(id, 'open');
    trail.push(id);
    for (const dep of byId.get(id)?.dependencies ?? []) {
      if (!byId.has(dep)) continue;
      const state = colour.get(dep);
      if (state === 'open') return [...trail.slice(trail.indexOf(dep)), dep];
      if (state === undefined) {
        const found = visit(dep);
        if (found) return found;
      }
    }
    trail.pop();
    colour.set(id, 'done');
    return null;
  };
  for (const task of tasks) {
    if (colour.has(task.id)) continue;
    const found = visit(task.id);
    if (found) return found;
  }
  return null;
}

/** Throws unless every dependency names a task of the plan, no task depends on itself, and there is no cycle. */
function checkGraph(tasks: readonly Task[]): void {
  const ids = new Set(tasks.map((t) => t.id));
  for (const task of tasks) {
    for (const dep of task.dependencies) {
      if (dep === task.id) throw new PlanError(`task "${task.id}" cannot depend on itself`);
      if (!ids.has(dep))
        throw new PlanError(`task "${task.id}" depends on "${dep}", which is not in the plan`);
    }
  }
  const cycle = findCycle(tasks);
  if (cycle) {
    throw new PlanError(
      `dependency cycle refused: ${cycle.join(' → ')}; remove one of these dependencies so the tasks can be ordered`,
    );
  }
}

function checkSize(count: number, limits: PlanLimits): void {
  if (count > limits.maxTasks) {
    throw new PlanError(
      `a plan holds at most ${limits.maxTasks} tasks (max_tasks_per_plan); this change would make ${count}: merge tasks or delete finished ones`,
    );
  }
}

function buildTask(id: string, input: TaskInput): Task {
  checkId(id);
  const dependencies = [...new Set(input.dependencies ?? [])];
  for (const dep of dependencies) checkId(dep);
  return {
    id,
    description: checkText(input.description, `task "${id}": the description`),
    status: 'pending',
    priority: input.priority ?? 'medium',
    dependencies,
    verification: optionalText(input.verification, `task "${id}": the verification`),
    notes: null,
  };
}

/** A new plan of `inputs`, in order (replacing any plan there was). */
export function createPlan(inputs: readonly TaskInput[], limits: PlanLimits): TaskPlan {
  checkSize(inputs.length, limits);
  const given = inputs.flatMap((i) => (i.id === undefined ? [] : [i.id]));
  const twice = given.find((id, index) => given.indexOf(id) !== index);
  if (twice !== undefined) throw new PlanError(`two tasks are named "${twice}": give each its own id`);
  // Ids given explicitly are taken first, so a generated one never collides with a later one.
  const taken = new Set(given);
  const tasks = inputs.map((input) => {
    const id = input.id ?? nextId(taken);
    taken.add(id);
    return buildTask(id, input);
  });
  checkGraph(tasks);
  return { tasks };
}

/** `plan` with one more task at the end. */
export function addTask(
  plan: TaskPlan,
  input: TaskInput,
  limits: PlanLimits,
): { plan: TaskPlan; task: Task } {
  checkSize(plan.tasks.length + 1, limits);
  const taken = new Set(plan.tasks.map((t) => t.id));
  if (input.id !== undefined && taken.has(input.id)) {
    throw new PlanError(`there is already a task "${input.id}": pick another id`);
  }
  const task = buildTask(input.id ?? nextId(taken), input);
  const tasks = [...plan.tasks, task];
  checkGraph(tasks);
  return { plan: { tasks }, task };
}

/** What {@link editTask} may change. */
export interface TaskEdit {
  description?: string | undefined;
  priority?: TaskPriority | undefined;
  dependencies?: readonly string[] | undefined;
  verification?: string | undefined;
}

export function editTask(plan: TaskPlan, id: string, edit: TaskEdit): TaskPlan {
  const task = taskOf(plan, id);
  if (edit.dependencies) for (const dep of edit.dependencies) checkId(dep);
  const changed: Task = {
    ...task,
    ...(edit.description === undefined
      ? {}
      : { description: checkText(edit.description, `task "${id}": the description`) }),
    ...(edit.priority === undefined ? {} : { priority: edit.priority }),
    ...(edit.dependencies === undefined ? {} : { dependencies: [...new Set(edit.dependencies)] }),
    ...(edit.verification === undefined
      ? {}
      : { verification: optionalText(edit.verification, `task "${id}": the verification`) }),
  };
  const tasks = plan.tasks.map((t) => (t === task ? changed : t));
  checkGraph(tasks);
  return { tasks };
}

/**
 * `plan` with the task's status (and notes) changed. A task cannot start or complete while a
 * dependency is unfinished: the model is told which.
 */
export function updateTaskStatus(plan: TaskPlan, id: string, status: TaskStatus, notes?: string): TaskPlan {
  const task = taskOf(plan, id);
  if (status === 'in_progress' || status === 'completed') {
    const waiting = unfinishedDependencies(plan, task);
    if (waiting.length > 0) {
      throw new PlanError(
        `task "${id}" cannot be ${status === 'completed' ? 'completed' : 'started'} before ${waiting.map((d) => `"${d}"`).join(', ')} ${waiting.length === 1 ? 'is' : 'are'} completed`,
      );
    }
  }
  const changed: Task = {
    ...task,
    status,
    notes: optionalText(notes, `task "${id}": the notes`) ?? task.notes,
  };
  return { tasks: plan.tasks.map((t) => (t === task ? changed : t)) };
}

/** `plan` without the task; refused while other tasks depend on it (they are named). */
export function deleteTask(plan: TaskPlan, id: string): TaskPlan {
  taskOf(plan, id);
  const dependents = plan.tasks.filter((t) => t.dependencies.includes(id)).map((t) => t.id);
  if (dependents.length > 0) {
    throw new PlanError(
      `task "${id}" cannot be deleted: ${dependents.map((d) => `"${d}"`).join(', ')} depend${dependents.length === 1 ? 's' : ''} on it (edit their dependencies first)`,
    );
  }
  return { tasks: plan.tasks.filter((t) => t.id !== id) };
}

function unfinishedDependencies(plan: TaskPlan, task: Task): string[] {
  return task.dependencies.filter((dep) => plan.tasks.find((t) => t.id === dep)?.status !== 'completed');
}

const PRIORITY_ORDER: Record<TaskPriority, number> = { high: 0, medium: 1, low: 2 };

/** Pending tasks whose dependencies are all completed: highest priority first, then plan order. */
export function readyTasks(plan: TaskPlan): Task[] {
  return plan.tasks
    .filter((t) => t.status === 'pending' && unfinishedDependencies(plan, t).length === 0)
    .map((t, index) => ({ t, index }))
    .sort((a, b) => PRIORITY_ORDER[a.t.priority] - PRIORITY_ORDER[b.t.priority] || a.index - b.index)
    .map(({ t }) => t);
}

/** Unfinished tasks that wait for others (or were marked blocked), with what they wait for. */
export function blockedTasks(plan: TaskPlan): { task: Task; waitingFor: string[] }[] {
  return plan.tasks.flatMap((task) => {
    if (task.status === 'completed') return [];
    const waitingFor = unfinishedDependencies(plan, task);
    return waitingFor.length > 0 || task.status === 'blocked' ? [{ task, waitingFor }] : [];
  });
}

/** Counts by status, for summaries. */
export function planCounts(plan: TaskPlan): Record<TaskStatus, number> {
  const counts: Record<TaskStatus, number> = { pending: 0, in_progress: 0, completed: 0, blocked: 0 };
  for (const task of plan.tasks) counts[task.status]++;
  return counts;
}
