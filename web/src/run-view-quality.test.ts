import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventInput } from '../../src/types/events.js';
import { replay } from './run-view.js';

const stamp = (inputs: RunEventInput[]): RunEvent[] =>
  inputs.map((e, seq) => ({ ...e, runId: 'r', seq, ts: 1000 + seq }) as RunEvent);

const agents = ['a', 'b'].map((id, i) => ({
  agentId: id,
  anonymousId: `agent${i + 1}`,
  backendType: 'scripted',
  model: 'm',
}));
const ballot = (voter: string, label: string): RunEventInput[] =>
  (['S1', 'S2'] as const).map((subtaskId, i) => ({
    type: 'vote.cast',
    agentId: voter,
    targetAgentId: i === 0 ? 'a' : 'b',
    targetAnonymousId: `agent${i + 1}`,
    targetLabel: i === 0 ? label : 'agent2.1',
    reason: `${voter} ok`,
    counted: true,
    subtaskId,
  }));

describe('the web view of the quality loop', () => {
  it('keeps one vote per subtask in the vote graph: a ballot supersedes only the same subtask', () => {
    const view = replay(
      stamp([
        { type: 'run.started', question: 'q', agents, settings: {} },
        {
          type: 'decomposition.planned',
          plannerId: 'a',
          presenterId: 'b',
          subtasks: [
            { id: 'S1', title: 'One', description: '', ownerId: 'a', ownerAnonymousId: 'agent1' },
            { id: 'S2', title: 'Two', description: '', ownerId: 'b', ownerAnonymousId: 'agent2' },
          ],
        },
        ...ballot('a', 'agent1.1'),
        ...ballot('a', 'agent1.2'),
      ]),
    );
    expect(view.votes.map((v) => `${v.subtaskId}:${v.label}:${v.struck ?? 'holds'}`)).toEqual([
      'S1:agent1.1:superseded',
      'S2:agent2.1:superseded',
      'S1:agent1.2:holds',
      'S2:agent2.1:holds',
    ]);
    expect(view.run.quality.subtasks.map((s) => s.id)).toEqual(['S1', 'S2']);
    expect(view.timeline.some((t) => t.text === 'subtasks: S1 a, S2 b; presenter b')).toBe(true);
  });

  it('notes each checklist verdict in the timeline', () => {
    const view = replay(
      stamp([
        { type: 'run.started', question: 'q', agents, settings: {} },
        {
          type: 'checklist.verdict',
          agentId: 'a',
          round: 1,
          verdict: 'iterate',
          basis: 'scores',
          bestAgentId: 'b',
          bestLabel: 'agent2.1',
          aggregates: { a: 4, b: 6 },
          failing: ['E1'],
          demoted: [],
        },
      ]),
    );
    expect(view.timeline.at(-1)?.text).toBe('checklist round 1: iterate (best agent2.1, fails E1)');
    expect(view.run.quality.verdicts).toHaveLength(1);
  });
});
