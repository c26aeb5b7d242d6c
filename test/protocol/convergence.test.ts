import { describe, expect, it } from 'vitest';
import { defaultCoordinationSettings } from '../../src/coordination/settings.js';
import type { RecordedRequest, ScriptStep } from '../../src/testing/scripted-backend.js';
import { requestText, runScenario, toolNames } from '../support/harness.js';

/**
 * A model that always wants to improve: it submits a new answer whenever `new_answer` is offered and
 * only votes when it is not. Without a bound, two of these never converge.
 */
function alwaysImproving(name: string, steps = 40): ScriptStep[] {
  let revision = 0;
  const decide = (request: RecordedRequest): ScriptStep => {
    const tools = request.tools.map((t) => t.name);
    if (tools.includes('new_answer')) {
      revision++;
      return { toolCalls: [{ name: 'new_answer', arguments: { content: `${name} revision ${revision}` } }] };
    }
    const vote = request.tools.find((t) => t.name === 'vote');
    if (!vote) return { text: `Final from ${name}` };
    const offered = (vote.parameters as { properties: { agent_id: { enum: string[] } } }).properties.agent_id
      .enum;
    return { toolCalls: [{ name: 'vote', arguments: { agent_id: offered[0] as string, reason: 'fine' } }] };
  };
  return Array.from({ length: steps }, () => decide);
}

describe('bounded convergence', () => {
  it('two always-improving agents with default settings end with a winner and at most the default cap each', async () => {
    const cap = defaultCoordinationSettings.maxNewAnswersPerAgent as number;
    expect(cap).toBeGreaterThan(0);
    expect(cap).toBeLessThanOrEqual(5);
    const { recorder, backends, finished } = await runScenario({
      a: alwaysImproving('a'),
      b: alwaysImproving('b'),
    });
    expect(finished.status).toBe('completed');
    expect(finished.winnerId).not.toBeNull();
    expect(recorder.ofType('coordination.finished')[0]?.reason).toBe('consensus');
    for (const id of ['a', 'b']) {
      expect(recorder.ofType('answer.submitted').filter((e) => e.agentId === id)).toHaveLength(cap);
    }
    // Vote-only mode: past the cap new_answer is not offered at all, and the prompt says why.
    const capped = backends['a']?.requests.find(
      (r) => !toolNames(r).includes('new_answer') && toolNames(r).length,
    );
    expect(toolNames(capped)).toEqual(['vote']);
    expect(requestText(capped)).toMatch(/VOTE ONLY: you have already submitted the maximum of 3 answers/);
    // Nobody was refused for trying: the model was never offered the tool it may not use.
    expect(recorder.ofType('workflow.rejected')).toEqual([]);
  });

  it('an explicit null cap is unlimited and warns at start that the run may not converge', async () => {
    const { recorder, finished } = await runScenario(
      { a: alwaysImproving('a'), b: alwaysImproving('b') },
      { settings: { maxNewAnswersPerAgent: null, maxTotalTurns: 12 } },
    );
    const warning = recorder.ofType('run.warning')[0];
    expect(warning?.code).toBe('unbounded_answers');
    expect(warning?.message).toMatch(/may not converge before its timeout/);
    // The events right after run.started: the warning comes before any turn.
    expect(recorder.events[1]?.type).toBe('run.warning');
    // The hard ceiling on turns still ends it, with the best answer so far presented.
    expect(recorder.ofType('coordination.finished')[0]?.reason).toBe('turn_limit');
    expect(recorder.ofType('agent.turn.started')).toHaveLength(12);
    expect(finished.status).toBe('completed');
    expect(finished.finalAnswer).toMatch(/^Final from /);
  });

  it('the turn ceiling with no answer at all fails the run with a message naming the key', async () => {
    const silent = (): ScriptStep[] => Array.from({ length: 20 }, () => ({ error: new Error('flaky') }));
    const { recorder, finished } = await runScenario(
      { a: silent(), b: silent() },
      { settings: { maxTotalTurns: 3, maxAgentFailures: 10 } },
    );
    expect(recorder.ofType('coordination.finished')[0]?.reason).toBe('turn_limit');
    expect(finished.status).toBe('failed');
    expect(finished.exitCode).toBe(2);
    expect(finished.error?.message).toMatch(/ceiling of 3 turns \(orchestrator\.max_total_turns\)/);
  });
});
