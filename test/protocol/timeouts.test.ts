import { describe, expect, it } from 'vitest';
import { step } from '../../src/testing/scripted-backend.js';
import { answered, gateOn, policy, requestText, runScenario as run } from '../support/harness.js';
import { onVirtualClock, useVirtualTimers } from '../support/virtual-clock.js';

// The timeouts race the scripted answers' delays: on a virtual clock, in the order written here.
useVirtualTimers();
const runScenario = (...args: Parameters<typeof run>) => onVirtualClock(run(...args));

describe('timeouts', () => {
  it('a turn that runs past agent_turn_timeout_seconds is aborted and counts as failed', async () => {
    const { recorder, finished } = await runScenario(
      { slow: [step.hang(), ...policy('S', 'agent2')], b: policy('B', 'agent2') },
      { settings: { agentTurnTimeoutMs: 50 } },
    );
    const failed = recorder.ofType('agent.turn.finished').find((t) => t.agentId === 'slow');
    expect(failed).toMatchObject({
      outcome: 'failed',
      error: { code: 'timeout', message: 'turn timed out after 0.05s' },
    });
    expect(finished.status).toBe('completed');
  });

  it('the orchestrator timeout stops coordination and picks the earliest answer when no vote was ever cast', async () => {
    const { recorder, finished } = await runScenario(
      {
        a: [{ ...step.answer('A'), delayMs: 10 }, step.hang()],
        b: [step.answer('B'), step.hang(), step.text('Presented B')],
      },
      { settings: { orchestratorTimeoutMs: 150 } },
    );
    // b answered first, though a comes first in config order.
    expect(recorder.ofType('coordination.finished')[0]).toMatchObject({
      reason: 'timeout',
      winnerId: 'b',
      tallies: {},
    });
    expect(finished).toMatchObject({
      status: 'completed',
      exitCode: 0,
      winnerId: 'b',
      finalAnswer: 'Presented B',
    });
    // In-flight turns were aborted, not failed.
    expect(recorder.ofType('agent.turn.finished').filter((t) => t.outcome === 'failed')).toHaveLength(0);
    expect(recorder.ofType('agent.turn.finished').filter((t) => t.outcome === 'aborted')).toHaveLength(2);
  });

  it('with no counted vote at the timeout, the agent most voted for earlier wins with its latest answer', async () => {
    const { finished, recorder } = await runScenario(
      {
        a: [step.answer('A'), step.hang()],
        b: [{ ...step.answer('B'), delayMs: 10 }, step.vote('agent2'), step.hang(), step.text('Presented B')],
        c: [{ ...step.answer('C'), delayMs: 20 }, step.hang()],
      },
      { settings: { orchestratorTimeoutMs: 150 } },
    );
    expect(recorder.ofType('coordination.finished')[0]).toMatchObject({ reason: 'timeout', tallies: {} });
    // b's vote for itself was reset by c's later answer: nothing counts now, but b was voted for
    // earlier, so b beats a's earlier answer.
    expect(finished).toMatchObject({ winnerId: 'b', finalAnswer: 'Presented B' });
  });

  it('with counted votes at the timeout, the most counted votes win', async () => {
    const { finished, recorder } = await runScenario(
      {
        a: [{ ...step.answer('A'), delayMs: 5 }, step.hang()],
        b: [step.answer('B'), step.hang(), step.text('Presented B')],
        c: [{ ...step.answer('C'), delayMs: 20 }, step.vote('agent2'), step.hang()],
      },
      { settings: { orchestratorTimeoutMs: 150 } },
    );
    expect(recorder.ofType('coordination.finished')[0]).toMatchObject({
      reason: 'timeout',
      tallies: { b: 1 },
    });
    expect(finished.winnerId).toBe('b');
  });

  it('with no answer at all the orchestrator timeout ends the run with exit code 3', async () => {
    const { finished } = await runScenario(
      { a: [step.hang()], b: [step.hang()] },
      { settings: { orchestratorTimeoutMs: 50 } },
    );
    expect(finished).toMatchObject({ status: 'timeout', exitCode: 3, winnerId: null, finalAnswer: null });
  });

  it('the orchestrator timeout also bounds a single agent', async () => {
    const { finished } = await runScenario(
      { solo: [step.hang()] },
      { settings: { orchestratorTimeoutMs: 50 } },
    );
    expect(finished).toMatchObject({ status: 'timeout', exitCode: 3 });
  });
});

describe('cancellation', () => {
  it('an abort cancels every in-flight call and ends the stream with status cancelled, exit 130', async () => {
    const controller = new AbortController();
    const bothWaiting = gateOn((e) => e.type === 'agent.step.started' && e.agentId === 'b');
    const { finished, recorder, backends } = await runScenario(
      { a: [step.hang()], b: [step.hang()] },
      {
        signal: controller.signal,
        onEvent: (e) => {
          bothWaiting.check(e);
          if (bothWaiting.isOpen && !controller.signal.aborted) setTimeout(() => controller.abort(), 10);
        },
      },
    );
    expect(finished).toMatchObject({ status: 'cancelled', exitCode: 130 });
    expect(recorder.ofType('agent.turn.finished').map((t) => t.outcome)).toEqual(['aborted', 'aborted']);
    expect(backends['a']?.requests).toHaveLength(1);
  });

  it('stopping the iteration early cancels the run', async () => {
    const { Orchestrator } = await import('../../src/coordination/orchestrator.js');
    const { ScriptedBackend } = await import('../../src/testing/scripted-backend.js');
    const a = new ScriptedBackend([step.hang()]);
    const b = new ScriptedBackend([step.hang()]);
    const orchestrator = new Orchestrator({
      agents: [
        { id: 'a', backend: a },
        { id: 'b', backend: b },
      ],
    });
    let count = 0;
    for await (const event of orchestrator.run('q')) {
      count++;
      if (event.type === 'agent.step.started') break;
    }
    expect(count).toBeGreaterThan(0);
  });
});

describe('on_new_answer: restart', () => {
  it('aborts in-flight turns at once and restarts them with a fresh view', async () => {
    const aAnswered = gateOn(answered('a'));
    const { recorder, backends, finished } = await runScenario(
      {
        a: [{ ...step.answer('A'), delayMs: 20 }, step.vote('agent1'), step.text('Final A')],
        b: [step.hang(), step.vote('agent1')],
      },
      { settings: { onNewAnswer: 'restart' }, onEvent: (e) => aAnswered.check(e) },
    );
    expect(recorder.ofType('agent.turn.restarted')).toMatchObject([{ agentId: 'b', reason: 'new answer' }]);
    const bTurns = recorder.ofType('agent.turn.finished').filter((t) => t.agentId === 'b');
    expect(bTurns.map((t) => t.outcome)).toEqual(['aborted', 'voted']);
    // The restarted turn is a fresh conversation that already shows A.
    const restarted = backends['b']?.requests[1];
    expect(restarted?.messages).toHaveLength(2);
    expect(requestText(restarted)).toContain('<agent1>\nA\n<end of agent1>');
    expect(recorder.ofType('agent.update.injected')).toHaveLength(0);
    expect(finished.winnerId).toBe('a');
  });
});
