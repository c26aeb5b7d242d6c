import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../types/events.js';
import { accuracyCostChart } from './chart-svg.js';
import { summarizeEval } from './report.js';
import { runFacts } from './run-facts.js';
import type { GradedAnswer, QuestionRecord } from './score-questions.js';

const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  reasoningTokens: 0,
  cachedInputTokens: 0,
});

describe('runFacts', () => {
  it("takes each agent's first answer with its own spend up to it, rounds and counted votes", () => {
    const base = { runId: 'r' };
    const events = [
      { ...base, seq: 0, ts: 1000, type: 'run.started', agents: [{ agentId: 'a' }, { agentId: 'b' }] },
      {
        ...base,
        seq: 1,
        ts: 1100,
        type: 'agent.step.finished',
        agentId: 'a',
        usage: usage(10, 5),
        costUsd: 0.1,
      },
      { ...base, seq: 2, ts: 1200, type: 'answer.submitted', agentId: 'a', content: 'first' },
      {
        ...base,
        seq: 3,
        ts: 1300,
        type: 'agent.step.finished',
        agentId: 'a',
        usage: usage(7, 3),
        costUsd: 0.2,
      },
      { ...base, seq: 4, ts: 1400, type: 'answer.submitted', agentId: 'a', content: 'second' },
      { ...base, seq: 5, ts: 1500, type: 'vote.cast', agentId: 'b', counted: false },
      { ...base, seq: 6, ts: 1600, type: 'vote.cast', agentId: 'b', counted: true },
    ] as unknown as RunEvent[];
    const facts = runFacts(events);
    expect(facts.agents).toEqual(['a', 'b']);
    expect(facts.firstAnswers.get('a')).toEqual({
      agentId: 'a',
      content: 'first',
      tokens: 15,
      costUsd: 0.1,
      latencyMs: 200,
    });
    expect(facts.firstAnswers.has('b')).toBe(false);
    expect(facts.rounds).toBe(2);
    expect(facts.votes).toBe(1);
  });
});

const graded = (correct: boolean, tokens = 10, costUsd = 0.01): GradedAnswer => ({
  answer: correct ? 'right' : 'wrong',
  correct,
  extracted: null,
  tokens,
  costUsd,
  latencyMs: 100,
});
function record(id: string, team: boolean, a: boolean | null, b: boolean | null): QuestionRecord {
  const agents = { a: a === null ? null : graded(a), b: b === null ? null : graded(b) };
  return {
    id,
    prompt: id,
    reference: 'right',
    status: 'completed',
    error: null,
    winner: 'a',
    team: graded(team, 100, 0.1),
    agents,
    majority: { ...graded(a ?? false, 20, 0.02), agentId: 'a', key: 'x' },
    oracle: a === true || b === true,
    rounds: 1,
    votes: 2,
    logs: a !== null || b !== null,
  };
}

describe('summarizeEval', () => {
  it('counts a question without logs as wrong for the baselines and says so', () => {
    const records = [
      record('1', true, true, false),
      record('2', true, false, true),
      record('3', false, null, null),
    ];
    const summary = summarizeEval(records, ['a', 'b'], ['single']);
    expect(summary.systems.map((s) => [s.name, s.correct, s.n])).toEqual([
      ['team', 2, 3],
      ['single:a', 1, 3],
      ['single:b', 1, 3],
      ['oracle', 2, 3],
    ]);
    expect(summary.withoutLogs).toBe(1);
    expect(summary.bestMember).toBe('a');
    expect(summary.lostToBestMember).toEqual([]);
    // Means over every question; a question without an answer spent nothing.
    expect(summary.systems[1]!.tokensPerQuestion).toBeCloseTo(20 / 3, 12);
    expect(summary.systems[0]!.costUsdPerQuestion).toBeCloseTo(0.1, 12);
  });
});

describe('accuracyCostChart', () => {
  it('plots against dollars when something cost money, else against tokens', () => {
    const records = [record('1', true, true, false), record('2', false, false, true)];
    const summary = summarizeEval(records, ['a', 'b']);
    const svg = accuracyCostChart(summary.systems, 'T <&>');
    expect(svg).toContain('cost per question (USD)');
    expect(svg).toContain('T &lt;&amp;&gt;');
    expect(svg).toContain('oracle (some agent right) 100%');
    const free = summary.systems.map((s) => ({
      ...s,
      costUsdPerQuestion: s.costUsdPerQuestion === null ? null : 0,
    }));
    expect(accuracyCostChart(free, 'T')).toContain('tokens per question (every system cost $0)');
  });
});
