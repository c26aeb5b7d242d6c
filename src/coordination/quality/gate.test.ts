import { describe, expect, it } from 'vitest';
import { parseChecklist } from './checklist-tool.js';
import { toCriteria } from './criteria.js';
import {
  aggregateScore,
  candidateOrder,
  demotedCriteria,
  evaluateGate,
  passMark,
  type GateCriterion,
  type ScoredCandidate,
} from './gate.js';

const criteria: GateCriterion[] = [
  { id: 'E1', tier: 'primary' },
  { id: 'E2', tier: 'standard' },
  { id: 'E3', tier: 'stretch' },
];
const none = new Set<string>();
const candidate = (agentIndex: number, scores: number[], order = agentIndex): ScoredCandidate => ({
  agentIndex,
  order,
  scores: Object.fromEntries(scores.map((s, i) => [`E${i + 1}`, s])),
});
const gate = (candidates: ScoredCandidate[], demoted = none, mayIterate = true) =>
  evaluateGate({ criteria, candidates, threshold: 7, demoted, mayIterate });

describe('the checklist gate: scores to verdicts', () => {
  it('converges when the best answer passes every criterion with a pass mark', () => {
    const result = gate([candidate(0, [7, 6, 0]), candidate(1, [5, 5, 5])]);
    expect(result).toMatchObject({ verdict: 'converge', basis: 'scores', best: 0, failing: [] });
  });

  it('iterates when the best answer misses a primary (below T) or standard (below T-1) criterion', () => {
    expect(gate([candidate(0, [6, 9, 9])])).toMatchObject({ verdict: 'iterate', failing: ['E1'] });
    expect(gate([candidate(0, [9, 5, 9])])).toMatchObject({ verdict: 'iterate', failing: ['E2'] });
    expect(gate([candidate(0, [6, 5, 0])])).toMatchObject({ verdict: 'iterate', failing: ['E1', 'E2'] });
  });

  it('stretch criteria never block', () => {
    expect(passMark('stretch', false, 7)).toBeNull();
    expect(gate([candidate(0, [7, 6, 0])]).verdict).toBe('converge');
  });

  it('the aggregate weighs primary 3, standard 2, stretch 1', () => {
    // (3·10 + 2·4 + 1·1) / 6 = 6.5
    expect(aggregateScore(criteria, { E1: 10, E2: 4, E3: 1 }, none)).toBe(6.5);
    const result = gate([candidate(0, [10, 4, 1]), candidate(1, [5, 9, 10])]);
    expect(result.aggregates.get(0)).toBe(6.5);
    expect(result.aggregates.get(1)).toBe(7.17);
    expect(result.best).toBe(1);
  });

  it('an agent that may not answer again converges (basis answer_limit)', () => {
    expect(gate([candidate(0, [1, 1, 1])], none, false)).toMatchObject({
      verdict: 'converge',
      basis: 'answer_limit',
      failing: ['E1', 'E2'],
    });
  });

  it('refuses to decide on nothing', () => {
    expect(() => gate([])).toThrow(/at least one/);
  });
});

describe('the checklist gate: demotion of criteria that do not discriminate', () => {
  const checklist = (...rows: number[][]) =>
    rows.map((r) => Object.fromEntries(r.map((s, i) => [`E${i + 1}`, s])));

  it('demotes a criterion whose mean spread stays below 2 over at least two comparing checklists', () => {
    const demoted = demotedCriteria(criteria, [
      checklist([8, 9, 2], [8, 3, 8]),
      checklist([7, 2, 5], [8, 9, 5]),
    ]);
    // E1 spreads 0 and 1 (mean 0.5); E2 spreads 6 and 7; E3 spreads 6 and 0 (mean 3).
    expect([...demoted]).toEqual(['E1']);
  });

  it('needs two checklists that compare two or more answers', () => {
    expect(demotedCriteria(criteria, [checklist([8, 8, 8], [8, 8, 8])]).size).toBe(0);
    expect(
      demotedCriteria(criteria, [checklist([8, 8, 8]), checklist([8, 8, 8]), checklist([5, 5, 5], [5, 5, 5])])
        .size,
    ).toBe(0);
  });

  it('a demoted criterion counts one tier lower: half the weight, and primary needs only T-1', () => {
    expect(passMark('primary', true, 7)).toBe(6);
    expect(passMark('standard', true, 7)).toBeNull();
    // E1 at 6 fails as primary but passes once demoted.
    expect(gate([candidate(0, [6, 9, 9])], new Set(['E1'])).verdict).toBe('converge');
    // Half weight for E1: (1.5·10 + 2·0 + 1·0) / 4.5 = 3.33
    expect(aggregateScore(criteria, { E1: 10, E2: 0, E3: 0 }, new Set(['E1']))).toBe(3.33);
  });
});

describe('the checklist gate: position bias and tie-breaks', () => {
  it('rotates the candidates per scorer and round, never putting the scorer’s own answer first', () => {
    expect(candidateOrder([0, 1, 2], 0, 1)).toEqual([1, 2, 0]);
    expect(candidateOrder([0, 1, 2], 1, 1)).toEqual([2, 0, 1]);
    expect(candidateOrder([0, 1, 2], 2, 1)).toEqual([0, 1, 2]);
    expect(candidateOrder([0, 1, 2], 0, 2)).toEqual([1, 2, 0]);
    expect(candidateOrder([0, 1, 2], 1, 2)).toEqual([2, 0, 1]);
    expect(candidateOrder([0, 1], 0, 1)).toEqual([1, 0]);
    expect(candidateOrder([0, 1], 1, 1)).toEqual([0, 1]);
    for (const scorer of [0, 1, 2])
      for (const round of [1, 2, 3, 4]) {
        const order = candidateOrder([2, 0, 1], scorer, round);
        expect(order[0]).not.toBe(scorer);
        expect([...order].sort()).toEqual([0, 1, 2]);
        expect(candidateOrder([2, 0, 1], scorer, round)).toEqual(order);
      }
    expect(candidateOrder([1], 1, 1)).toEqual([1]);
  });

  it('breaks ties by fewer failing criteria, then the earlier answer, then config order', () => {
    // Same aggregate (7): the one failing nothing wins.
    const fewerFailing = gate([candidate(0, [6, 8.5, 7]), candidate(1, [7, 7, 7])]);
    expect(fewerFailing.aggregates.get(0)).toBe(fewerFailing.aggregates.get(1));
    expect(fewerFailing.best).toBe(1);
    // Identical scores: the earlier answer (order 0 belongs to agent 2).
    expect(gate([candidate(1, [8, 8, 8], 5), candidate(2, [8, 8, 8], 0)]).best).toBe(2);
    // Identical scores and order: config order.
    expect(gate([candidate(2, [8, 8, 8], 1), candidate(1, [8, 8, 8], 1)]).best).toBe(1);
  });
});

describe('submit_checklist arguments', () => {
  const written = toCriteria([{ text: 'Correct', tier: 'primary' }, { text: 'Clear' }]);

  it('are numbered E1…En with the standard tier by default', () => {
    expect(written.map((c) => [c.id, c.tier])).toEqual([
      ['E1', 'primary'],
      ['E2', 'standard'],
    ]);
  });

  it('take every answer once, with a 0–10 score per criterion (numeric strings and floats rounded)', () => {
    const parsed = parseChecklist(
      {
        evaluations: [
          {
            agent_id: 'agent2',
            scores: { E1: { score: '7', reason: 'ok' }, E2: { score: 8.6, reason: '' } },
          },
          {
            agent_id: 'agent1',
            scores: { E1: { score: 3, reason: 'wrong' }, E2: { score: 10, reason: 'clear' } },
          },
        ],
      },
      written,
      ['agent2', 'agent1'],
    );
    expect(parsed.kind).toBe('ok');
    if (parsed.kind === 'ok')
      expect(parsed.scores.get('agent2')).toEqual({
        E1: { score: 7, reason: 'ok' },
        E2: { score: 9, reason: '' },
      });
  });

  it('are refused with a reason the model can act on', () => {
    const row = { E1: { score: 5, reason: 'x' }, E2: { score: 5, reason: 'x' } };
    const order = ['agent1', 'agent2'];
    const reason = (args: unknown) => {
      const parsed = parseChecklist(args, written, order);
      return parsed.kind === 'invalid' ? parsed.reason : 'ok';
    };
    expect(reason({})).toMatch(/needs "evaluations"/);
    expect(reason({ evaluations: [{ agent_id: 'agent1', scores: row }] })).toMatch(/agent2 is missing/);
    expect(reason({ evaluations: [{ agent_id: 'agent9', scores: row }] })).toMatch(/not one of the answers/);
    expect(
      reason({
        evaluations: [
          { agent_id: 'agent1', scores: row },
          { agent_id: 'agent1', scores: row },
        ],
      }),
    ).toMatch(/twice/);
    expect(
      reason({
        evaluations: [
          { agent_id: 'agent1', scores: { ...row, E2: { score: 11 } } },
          { agent_id: 'agent2', scores: row },
        ],
      }),
    ).toMatch(/E2 needs a score from 0 to 10/);
  });
});
