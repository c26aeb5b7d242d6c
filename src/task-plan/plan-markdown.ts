import type { Task, TaskPlan } from './plan-graph.js';
import { blockedTasks, planCounts, readyTasks } from './plan-graph.js';

const BOX: Record<Task['status'], string> = {
  pending: '[ ]',
  in_progress: '[~]',
  completed: '[x]',
  blocked: '[!]',
};

/** One line of text from model-written text: Markdown structure in it must not become structure here. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** One task as a Markdown list item (with its details indented under it). */
function taskLines(task: Task): string[] {
  const lines = [`- ${BOX[task.status]} **${task.id}** (${task.priority}) ${oneLine(task.description)}`];
  if (task.dependencies.length > 0) lines.push(`  - after: ${task.dependencies.join(', ')}`);
  if (task.verification) lines.push(`  - verify: ${oneLine(task.verification)}`);
  if (task.notes) lines.push(`  - notes: ${oneLine(task.notes)}`);
  return lines;
}

/**
 * The plan as Markdown (`tasks/plan.md` with `task_planning_filesystem_mode`): a checklist in plan
 * order, then what is ready now. Model text is folded to one line per field.
 */
export function planMarkdown(plan: TaskPlan): string {
  const counts = planCounts(plan);
  const lines = [
    '# Task plan',
    '',
    `${plan.tasks.length} tasks: ${counts.completed} completed, ${counts.in_progress} in progress, ${counts.pending} pending, ${counts.blocked} blocked.`,
    '',
    ...plan.tasks.flatMap(taskLines),
  ];
  const ready = readyTasks(plan).map((t) => t.id);
  const blocked = blockedTasks(plan).map(({ task }) => task.id);
  lines.push('', `Ready now: ${ready.join(', ') || 'none'}`, `Blocked: ${blocked.join(', ') || 'none'}`);
  return `${lines.join('\n')}\n`;
}
