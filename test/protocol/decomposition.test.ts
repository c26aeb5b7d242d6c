import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../../src/testing/scripted-backend.js';
import { step } from '../../src/testing/scripted-backend.js';
import type { RunEvent } from '../../src/types/events.js';
import { initialRunState, reduceRunState } from '../../src/types/run-state.js';
import { requestText, runScenario, toolNames } from '../support/harness.js';

/** The `enum` of a string property somewhere in a tool's parameters, by path. */
function enumAt(request: RecordedRequest, tool: string, path: string[]): string[] {
  let node = request.tools.find((t) => t.name === tool)?.parameters as Record<string, unknown> | undefined;
  for (const key of path) node = (node?.[key] ?? undefined) as Record<string, unknown> | undefined;
  return (node?.['enum'] as string[] | undefined) ?? [];
}

const stateOf = (events: RunEvent[]) => events.reduce(reduceRunState, initialRunState());

/** A voting-mode persona: answers once, votes for agent1, presents `Final from <name>`. */
function voter(name: string, steps = 12): ScriptStep[] {
  return Array.from({ length: steps }, () => (request: RecordedRequest): ScriptStep => {
    const tools = toolNames(request);
    if (tools.includes('vote'))
      return step.vote(enumAt(request, 'vote', ['properties', 'agent_id'])[0] as string, `${name} likes it`);
    if (tools.includes('new_answer')) return step.answer(`Answer by ${name}`);
    return { text: `Final from ${name}` };
  });
}

/**
 * A decomposition persona: plans three subtasks when asked (one per agent), delivers its part, votes on
 * every part it can see, and as the presenter assembles the parts it was given (one line each).
 */
function decomposer(name: string, steps = 20): ScriptStep[] {
  return Array.from({ length: steps }, () => (request: RecordedRequest): ScriptStep => {
    const tools = toolNames(request);
    const text = requestText(request);
    if (tools.includes('propose_subtasks'))
      return step.tool('propose_subtasks', {
        subtasks: [
          { title: 'Intro', description: 'Say what recursion is', owner: 'agent1' },
          { title: 'Example', description: 'Factorial in code', owner: 'agent2' },
          { title: 'Pitfalls', description: 'Base cases and stack depth', owner: 'agent3' },
        ],
      });
    if (tools.includes('vote')) {
      const ids = enumAt(request, 'vote', ['properties', 'votes', 'items', 'properties', 'subtask_id']);
      return step.tool('vote', {
        votes: ids.map((id) => ({ subtask_id: id, reason: `${name} approves ${id}` })),
      });
    }
    if (tools.includes('new_answer')) return step.answer(`PART-${name}: ${name}'s part of the explanation`);
    const parts = [...text.matchAll(/^(PART-\w+: .*)$/gm)].map((m) => m[1]);
    return { text: `Assembled by ${name}:\n${parts.join('\n')}` };
  });
}

describe('coordination_mode: decomposition', () => {
  it('one agent plans three subtasks, each owner delivers its part, votes are per subtask, one presenter assembles the whole', async () => {
    const { recorder, backends, finished } = await runScenario(
      { a: decomposer('a'), b: decomposer('b'), c: decomposer('c') },
      { settings: { coordinationMode: 'decomposition', presenterAgentId: 'c' } },
    );
    expect(finished.status).toBe('completed');
    const planned = recorder.ofType('decomposition.planned')[0];
    expect(planned).toMatchObject({ plannerId: 'a', presenterId: 'c' });
    expect(planned?.subtasks.map((s) => `${s.id}:${s.ownerId}`)).toEqual(['S1:a', 'S2:b', 'S3:c']);

    // Each agent's opening names its own subtask.
    expect(requestText(backends['b']?.requests[1])).toMatch(/YOUR SUBTASK: S2/);
    // Votes are per subtask: every counted ballot covers S1–S3.
    const counted = recorder.ofType('vote.cast').filter((v) => v.counted);
    for (const voter of ['a', 'b', 'c']) {
      const last3 = counted.filter((v) => v.agentId === voter).slice(-3);
      expect(last3.map((v) => `${v.subtaskId}→${v.targetAgentId}`)).toEqual(['S1→a', 'S2→b', 'S3→c']);
    }
    const end = recorder.ofType('coordination.finished')[0];
    expect(end).toMatchObject({ reason: 'consensus', winnerId: 'c', tallies: { a: 3, b: 3, c: 3 } });
    // One presenter, and the assembled answer holds each part.
    expect(recorder.ofType('presentation.started')).toEqual([
      expect.objectContaining({ agentId: 'c', mode: 'present' }),
    ]);
    for (const id of ['a', 'b', 'c']) expect(finished.finalAnswer).toContain(`PART-${id}:`);
    expect(requestText(backends['c']?.requests.at(-1))).toMatch(/<S2: Example — by b \(agent2\)>/);
    // The same views: the run state knows the subtasks and the votes.
    const state = stateOf(recorder.events);
    expect(state.quality.subtasks).toHaveLength(3);
    expect(state.quality.presenterId).toBe('c');
    expect(state.winnerId).toBe('c');
  });

  it('without a usable plan it warns and coordinates by voting', async () => {
    const noPlan = (request: RecordedRequest): ScriptStep =>
      toolNames(request).includes('propose_subtasks')
        ? step.tool('propose_subtasks', {
            subtasks: [{ title: 'All', description: 'everything', owner: 'agent1' }],
          })
        : { text: 'unused' };
    const { recorder, finished } = await runScenario(
      { a: [noPlan, ...voter('a')], b: voter('b') },
      { settings: { coordinationMode: 'decomposition' } },
    );
    expect(recorder.ofType('run.warning').find((w) => w.code === 'decomposition_failed')?.message).toMatch(
      /agent2 owned no subtask/,
    );
    expect(recorder.ofType('decomposition.planned')).toEqual([]);
    expect(finished.status).toBe('completed');
  });
});
