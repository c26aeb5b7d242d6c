import { describe, expect, it } from 'vitest';
import { step } from '../../src/testing/scripted-backend.js';
import { policy, runScenario } from '../support/harness.js';

// $1 per million input and output tokens: a scripted call (10 in, 5 out by default) costs $0.000015.
const price = { inputPerMillion: 1, outputPerMillion: 1 };
const big = { usage: { inputTokens: 1_000_000, outputTokens: 0 } }; // exactly $1 at that price

describe('cost and budget', () => {
  it('every step reports its cost, and the run totals cost per agent', async () => {
    const { recorder, finished } = await runScenario(
      { a: policy('A', 'agent1'), b: policy('B', 'agent1') },
      { prices: { a: price } },
    );
    const aSteps = recorder.ofType('agent.step.finished').filter((s) => s.agentId === 'a');
    expect(aSteps.every((s) => Math.abs(s.costUsd - 0.000015) < 1e-12)).toBe(true);
    expect(
      recorder
        .ofType('agent.step.finished')
        .filter((s) => s.agentId === 'b')
        .every((s) => s.costUsd === 0),
    ).toBe(true);
    expect(finished.costUsd['a']).toBeCloseTo(0.000015 * aSteps.length, 12);
    expect(finished.costUsd['b']).toBe(0);
    expect(recorder.ofType('run.started')[0]?.agents.map((x) => x.price)).toEqual([price, null]);
  });

  it('passing max_cost_usd stops coordination like the timeout: deterministic winner, presented, reason budget', async () => {
    const { recorder, finished, backends } = await runScenario(
      {
        a: [
          step.answer('A', big),
          { ...step.answer('A revised: much better', big), delayMs: 50 },
          step.text('Presented A'),
        ],
        b: [{ ...step.answer('B'), delayMs: 20 }, step.hang()],
      },
      { prices: { a: price, b: price }, settings: { maxCostUsd: 1.5 } },
    );
    const end = recorder.ofType('coordination.finished')[0];
    expect(end).toMatchObject({ reason: 'budget', winnerId: 'a' });
    expect(finished).toMatchObject({
      status: 'completed',
      exitCode: 0,
      winnerId: 'a',
      finalAnswer: 'Presented A',
    });
    // b's hanging turn was aborted by the stop, not counted as a failure.
    expect(
      recorder
        .ofType('agent.turn.finished')
        .filter((t) => t.agentId === 'b')
        .map((t) => t.outcome),
    ).toEqual(['answered', 'aborted']);
    expect(finished.costUsd['a']).toBeGreaterThan(1.5);
    backends['a']?.assertDone();
  });

  it('a budget spent before any answer fails the run with exit 2 and says why', async () => {
    const { finished } = await runScenario(
      {
        a: [{ ...step.text('thinking…', big), toolCalls: [{ name: 'lookup', arguments: {} }] }, step.hang()],
        b: [step.hang()],
      },
      { prices: { a: price }, settings: { maxCostUsd: 0.5 }, tools: true },
    );
    expect(finished).toMatchObject({ status: 'failed', exitCode: 2, winnerId: null });
    expect(finished.error).toEqual({
      code: 'budget_exceeded',
      message: 'The cost budget of $0.5 was spent before any agent submitted an answer.',
    });
  });
});

describe('provider-executed tools', () => {
  it('appear as tool events marked providerExecuted and are never executed by the registry', async () => {
    const { recorder } = await runScenario({
      a: [
        {
          ...step.answer('A'),
          providerTools: [{ name: 'web_search', input: { query: 'q' }, output: { results: 3 } }],
        },
        step.vote('agent1'),
        step.text('F'),
      ],
      b: policy('B', 'agent1'),
    });
    const started = recorder.ofType('tool.call.started');
    const finishedCalls = recorder.ofType('tool.call.finished');
    expect(started).toMatchObject([
      { agentId: 'a', toolName: 'web_search', arguments: { query: 'q' }, providerExecuted: true },
    ]);
    expect(finishedCalls).toMatchObject([
      { toolName: 'web_search', result: '{"results":3}', isError: false, providerExecuted: true },
    ]);
    expect(recorder.ofType('workflow.rejected')).toHaveLength(0);
  });
});
