import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/types/events.js';
import { replay } from './run-view.js';

const task = (id: string, status: 'pending' | 'completed', dependencies: string[] = []) => ({
  id,
  description: `do ${id}`,
  status,
  priority: 'medium' as const,
  dependencies,
  verification: null,
  notes: null,
});

describe('task plans in the run view', () => {
  it("keeps each agent's latest plan and notes every change in the timeline", () => {
    const base = { runId: 'r', ts: 1 };
    const events: RunEvent[] = [
      {
        ...base,
        seq: 0,
        type: 'task_plan.changed',
        agentId: 'a',
        action: 'create_task_plan',
        tasks: [task('x', 'pending'), task('y', 'pending', ['x'])],
      },
      {
        ...base,
        seq: 1,
        type: 'task_plan.changed',
        agentId: 'b',
        action: 'restored',
        tasks: [task('z', 'completed')],
      },
      {
        ...base,
        seq: 2,
        type: 'task_plan.changed',
        agentId: 'a',
        action: 'update_task_status',
        tasks: [task('x', 'completed'), task('y', 'pending', ['x'])],
      },
    ];
    const view = replay(events);
    expect(view.plans['a']?.map((t) => t.status)).toEqual(['completed', 'pending']);
    expect(view.plans['b']?.map((t) => t.id)).toEqual(['z']);
    expect(view.timeline.map((t) => [t.agentId, t.text])).toEqual([
      ['a', 'task plan create task plan: 0/2 done'],
      ['b', 'task plan carried over: 1/1 done'],
      ['a', 'task plan update task status: 1/2 done'],
    ]);
  });
});
