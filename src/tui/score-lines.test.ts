import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventInput } from '../types/events.js';
import { initialRunState, reduceRunState } from '../types/run-state.js';
import { scoreLines } from './score-lines.js';

/** A small checklist-gated run as events: two agents, two rounds, a verdict each. */
function qualityRun(): RunEvent[] {
  const inputs: RunEventInput[] = [
    {
      type: 'run.started',
      question: 'q',
      agents: ['a', 'b'].map((id, i) => ({
        agentId: id,
        anonymousId: `agent${i + 1}`,
        backendType: 'scripted',
        model: 'm',
      })),
      settings: {},
    },
    {
      type: 'checklist.criteria',
      source: 'preset',
      preset: 'evaluation',
      aspiration: 'Right.',
      criteria: [
        { id: 'E1', text: 'Correct', tier: 'primary', antiPatterns: [] },
        { id: 'E2', text: 'Clear', tier: 'stretch', antiPatterns: [] },
      ],
      generatedBy: null,
      threshold: 7,
    },
    ...(['a', 'b'] as const).flatMap((scorer): RunEventInput[] => [
      {
        type: 'checklist.submitted',
        agentId: scorer,
        round: 1,
        order: ['a', 'b'],
        scores: [
          {
            targetAgentId: 'a',
            targetLabel: 'agent1.1',
            criterionId: 'E1',
            score: scorer === 'a' ? 4 : 5,
            reason: 'r',
          },
          { targetAgentId: 'a', targetLabel: 'agent1.1', criterionId: 'E2', score: 9, reason: '' },
          { targetAgentId: 'b', targetLabel: 'agent2.1', criterionId: 'E1', score: 8, reason: 'good' },
          { targetAgentId: 'b', targetLabel: 'agent2.1', criterionId: 'E2', score: 2, reason: '' },
        ],
      },
      {
        type: 'checklist.verdict',
        agentId: scorer,
        round: 1,
        verdict: scorer === 'a' ? 'iterate' : 'converge',
        basis: 'scores',
        bestAgentId: 'b',
        bestLabel: 'agent2.1',
        aggregates: { a: 5.7, b: 6 },
        failing: scorer === 'a' ? ['E1'] : [],
        demoted: [],
      },
    ]),
  ];
  return inputs.map((e, seq) => ({ ...e, runId: 'r', seq, ts: 1000 + seq }) as RunEvent);
}

describe('the score matrix on the votes screen', () => {
  it('shows each round as authors × criteria (mean scores, ! below the pass mark), the verdicts and the criteria', () => {
    const state = qualityRun().reduce(reduceRunState, initialRunState());
    const text = scoreLines(state, 80).map((l) => l.text.trimEnd());
    expect(text).toContain('Checklist scores (preset evaluation, pass mark 7)');
    expect(text).toContain('Round 1 · scored by a, b');
    expect(text).toContain('a       4.5!  9.0');
    expect(text).toContain('b       8.0   2.0');
    expect(text).toContain('  a r1: iterate — best agent2.1, fails E1');
    expect(text).toContain('  b r1: converge — best agent2.1');
    expect(text).toContain('  E1 [primary] Correct');
  });

  it('shows nothing for a run without the quality loop', () => {
    const state = qualityRun().slice(0, 1).reduce(reduceRunState, initialRunState());
    expect(scoreLines(state, 80)).toEqual([]);
  });
});
