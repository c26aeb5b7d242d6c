import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentToolRegistry } from '../tools/agent-tool-registry.js';
import type { ToolEventInput, ToolRegistry } from '../types/tool.js';
import { taskPlanToolProvider, TASK_PLAN_TOOLS, type TaskPlanOptions } from './plan-tools.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'task-plan-'));
  dirs.push(dir);
  return dir;
};

async function planRegistry(options: Partial<TaskPlanOptions> & { workspace: string | null }) {
  const events: ToolEventInput[] = [];
  const registry: ToolRegistry = createAgentToolRegistry({
    providers: [taskPlanToolProvider({ maxTasks: 10, markdown: false, ...options })],
    excludeTools: [],
    timeoutMs: 10_000,
    maxResultChars: 100_000,
  });
  await registry.start!({ agentId: 'a1', signal: new AbortController().signal, emit: (e) => events.push(e) });
  let n = 0;
  const call = (name: string, args: Record<string, unknown> = {}) =>
    registry.execute(
      { id: `c${++n}`, name, arguments: args },
      { agentId: 'a1', phase: 'coordination', signal: new AbortController().signal },
    );
  return { registry, events, call };
}

describe('task plan tools', () => {
  it("offers MassGen's nine tools", async () => {
    const { registry } = await planRegistry({ workspace: null });
    expect(registry.list({ agentId: 'a1', phase: 'coordination' }).map((t) => t.name)).toEqual([
      ...TASK_PLAN_TOOLS,
    ]);
  });

  it('saves each change in tasks/plan.json (and plan.md) and reports the whole plan', async () => {
    const workspace = tempDir();
    const { call, events } = await planRegistry({ workspace, markdown: true });
    const created = await call('create_task_plan', {
      tasks: ['research', { id: 'write', description: 'write it', depends_on: ['task_1'] }],
    });
    expect(created.isError).toBeFalsy();
    expect(JSON.parse(created.content).ready).toEqual(['task_1']);
    await call('update_task_status', { task_id: 'task_1', status: 'completed', completion_notes: 'done' });
    const saved = JSON.parse(readFileSync(path.join(workspace, 'tasks', 'plan.json'), 'utf8'));
    expect(saved.tasks.map((t: { id: string; status: string }) => [t.id, t.status])).toEqual([
      ['task_1', 'completed'],
      ['write', 'pending'],
    ]);
    expect(readFileSync(path.join(workspace, 'tasks', 'plan.md'), 'utf8')).toContain('- [x] **task_1**');
    expect(events.map((e) => e.type === 'task_plan.changed' && [e.action, e.tasks.length])).toEqual([
      ['create_task_plan', 2],
      ['update_task_status', 2],
    ]);
    const ready = await call('get_ready_tasks');
    expect(JSON.parse(ready.content).ready.map((t: { id: string }) => t.id)).toEqual(['write']);
  });

  it('refuses a cycle with a tool error naming it, and keeps the plan', async () => {
    const workspace = tempDir();
    const { call, events } = await planRegistry({ workspace });
    await call('create_task_plan', {
      tasks: [
        { id: 'a', description: 'a' },
        { id: 'b', description: 'b', depends_on: ['a'] },
      ],
    });
    const result = await call('edit_task', { task_id: 'a', depends_on: ['b'] });
    expect(result.isError).toBe(true);
    expect(result.content).toContain('dependency cycle refused: a → b → a');
    expect(events).toHaveLength(1);
    const saved = JSON.parse(readFileSync(path.join(workspace, 'tasks', 'plan.json'), 'utf8'));
    expect(saved.tasks[0].dependencies).toEqual([]);
  });

  it('stops a flood of add_task at the cap', async () => {
    const { call } = await planRegistry({ workspace: tempDir(), maxTasks: 3 });
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await call('add_task', { description: `task ${i}` }));
    expect(results.map((r) => r.isError === true)).toEqual([false, false, false, true, true, true]);
    expect(results[3]!.content).toContain('at most 3 tasks (max_tasks_per_plan)');
  });

  it('does not write through a tasks/ link planted in the workspace', async () => {
    const workspace = tempDir();
    const outside = tempDir();
    symlinkSync(outside, path.join(workspace, 'tasks'));
    const { call, events } = await planRegistry({ workspace });
    const result = await call('add_task', { description: 'x' });
    expect(result.isError).toBe(true);
    expect(result.content).toContain('tasks/ in your workspace is not a plain folder');
    expect(existsSync(path.join(outside, 'plan.json'))).toBe(false);
    expect(events).toHaveLength(0);
  });

  it('replaces, not follows, a link planted at tasks/plan.json', async () => {
    const workspace = tempDir();
    const victim = path.join(tempDir(), 'victim.txt');
    writeFileSync(victim, 'keep me');
    mkdirSync(path.join(workspace, 'tasks'));
    symlinkSync(victim, path.join(workspace, 'tasks', 'plan.json'));
    const { call } = await planRegistry({ workspace });
    expect((await call('add_task', { description: 'x' })).isError).toBeFalsy();
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    expect(JSON.parse(readFileSync(path.join(workspace, 'tasks', 'plan.json'), 'utf8')).tasks).toHaveLength(
      1,
    );
  });

  it("starts from the previous turn's plan, and says so when that file is not a plan", async () => {
    const previous = tempDir();
    const first = await planRegistry({ workspace: previous });
    await first.call('create_task_plan', { tasks: ['one', 'two'] });
    await first.call('update_task_status', { task_id: 'task_1', status: 'completed' });
    const workspace = tempDir();
    const next = await planRegistry({ workspace, previousWorkspace: previous });
    expect(next.events.map((e) => e.type === 'task_plan.changed' && e.action)).toEqual(['restored']);
    const plan = JSON.parse((await next.call('get_task_plan')).content);
    expect(plan.tasks.map((t: { status: string }) => t.status)).toEqual(['completed', 'pending']);
    expect(existsSync(path.join(workspace, 'tasks', 'plan.json'))).toBe(true);

    writeFileSync(path.join(previous, 'tasks', 'plan.json'), '{"version":1,"tasks":[{"id":"../x"}]}');
    const broken = await planRegistry({ workspace: tempDir(), previousWorkspace: previous });
    expect(broken.events).toHaveLength(0);
    expect((await broken.call('get_task_plan')).content).toMatch(/previous turn's plan was not carried over/);
  });
});
