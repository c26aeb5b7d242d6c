import { describe, expect, it } from 'vitest';
import {
  addTask,
  blockedTasks,
  createPlan,
  deleteTask,
  editTask,
  emptyPlan,
  findCycle,
  PlanError,
  readyTasks,
  updateTaskStatus,
} from './plan-graph.js';
import { planMarkdown } from './plan-markdown.js';

const limits = { maxTasks: 5 };

describe('task plan graph', () => {
  it('creates tasks with generated and given ids, pending, medium priority by default', () => {
    const plan = createPlan(
      [{ description: 'design' }, { id: 'build', description: 'build it', dependencies: ['task_1'] }],
      limits,
    );
    expect(plan.tasks.map((t) => [t.id, t.status, t.priority, t.dependencies])).toEqual([
      ['task_1', 'pending', 'medium', []],
      ['build', 'pending', 'medium', ['task_1']],
    ]);
  });

  it('refuses a dependency cycle and names it', () => {
    const tasks = [
      { id: 'a', description: 'a', dependencies: ['c'] },
      { id: 'b', description: 'b', dependencies: ['a'] },
      { id: 'c', description: 'c', dependencies: ['b'] },
    ];
    expect(() => createPlan(tasks, limits)).toThrow(/dependency cycle refused: a → c → b → a/);
    // An edit that would close a cycle is refused too, and the plan is unchanged.
    const plan = createPlan(
      [
        { id: 'a', description: 'a' },
        { id: 'b', description: 'b', dependencies: ['a'] },
      ],
      limits,
    );
    expect(() => editTask(plan, 'a', { dependencies: ['b'] })).toThrow(/cycle refused: a → b → a/);
    expect(() => addTask(plan, { id: 'x', description: 'x', dependencies: ['x'] }, limits)).toThrow(
      /cannot depend on itself/,
    );
    expect(plan.tasks[0]!.dependencies).toEqual([]);
  });

  it('finds no cycle in a diamond', () => {
    const plan = createPlan(
      [
        { id: 'a', description: 'a' },
        { id: 'b', description: 'b', dependencies: ['a'] },
        { id: 'c', description: 'c', dependencies: ['a'] },
        { id: 'd', description: 'd', dependencies: ['b', 'c'] },
      ],
      limits,
    );
    expect(findCycle(plan.tasks)).toBeNull();
  });

  it('knows which tasks are ready and which are blocked, by priority then plan order', () => {
    let plan = createPlan(
      [
        { id: 'a', description: 'a', priority: 'low' },
        { id: 'b', description: 'b', priority: 'high' },
        { id: 'c', description: 'c', dependencies: ['a', 'b'] },
      ],
      limits,
    );
    expect(readyTasks(plan).map((t) => t.id)).toEqual(['b', 'a']);
    expect(blockedTasks(plan).map((b) => [b.task.id, b.waitingFor])).toEqual([['c', ['a', 'b']]]);
    expect(() => updateTaskStatus(plan, 'c', 'in_progress')).toThrow(
      /cannot be started before "a", "b" are completed/,
    );
    plan = updateTaskStatus(plan, 'a', 'completed', 'checked by hand');
    plan = updateTaskStatus(plan, 'b', 'completed');
    expect(readyTasks(plan).map((t) => t.id)).toEqual(['c']);
    expect(plan.tasks[0]!.notes).toBe('checked by hand');
  });

  it('caps the plan size: a flood of add_task stops at max_tasks_per_plan', () => {
    let plan = emptyPlan();
    for (let i = 0; i < limits.maxTasks; i++) plan = addTask(plan, { description: `t${i}` }, limits).plan;
    expect(() => addTask(plan, { description: 'one more' }, limits)).toThrow(/at most 5 tasks/);
    expect(() =>
      createPlan(
        Array.from({ length: 6 }, () => ({ description: 'x' })),
        limits,
      ),
    ).toThrow(PlanError);
  });

  it('refuses ids that could name a path, a huge text and unknown dependencies', () => {
    for (const id of ['../escape', 'a/b', '', 'x'.repeat(65), 'tab\t']) {
      expect(() => addTask(emptyPlan(), { id, description: 'd' }, limits)).toThrow(/is not allowed/);
    }
    expect(() => addTask(emptyPlan(), { description: 'x'.repeat(5000) }, limits)).toThrow(/keep it under/);
    expect(() => addTask(emptyPlan(), { description: 'd', dependencies: ['ghost'] }, limits)).toThrow(
      /depends on "ghost", which is not in the plan/,
    );
  });

  it('deletes a task only when nothing depends on it', () => {
    const plan = createPlan(
      [
        { id: 'a', description: 'a' },
        { id: 'b', description: 'b', dependencies: ['a'] },
      ],
      limits,
    );
    expect(() => deleteTask(plan, 'a')).toThrow(/"b" depends on it/);
    expect(deleteTask(deleteTask(plan, 'b'), 'a').tasks).toEqual([]);
    expect(() => deleteTask(plan, 'zzz')).toThrow(/no task "zzz" in the plan \(tasks: a, b\)/);
  });

  it('renders Markdown with model text folded to one line', () => {
    const plan = createPlan(
      [{ id: 'a', description: 'first\n# not a heading', verification: 'run the tests' }],
      limits,
    );
    const md = planMarkdown(plan);
    expect(md).toContain('- [ ] **a** (medium) first # not a heading');
    expect(md).toContain('  - verify: run the tests');
    expect(md).not.toMatch(/^# not a heading/m);
  });
});
