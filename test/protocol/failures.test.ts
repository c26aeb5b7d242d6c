import { describe, expect, it } from 'vitest';
import { step } from '../../src/testing/scripted-backend.js';
import { answered, gateOn, lookupAfter, policy, requestText, runScenario } from '../support/harness.js';

describe('failures', () => {
  it('retryable provider errors are retried within the step; the turn does not fail', async () => {
    const { recorder, finished } = await runScenario({
      a: [step.fail(429, 'rate limited', 0), step.fail(503, 'overloaded', 0), ...policy('A', 'agent1')],
      b: policy('B', 'agent1'),
    });
    const retries = recorder.ofType('agent.step.retrying').filter((r) => r.agentId === 'a');
    expect(retries.map((r) => [r.attempt, r.delayMs])).toEqual([
      [1, 0],
      [2, 0],
    ]);
    expect(retries[0]?.error.message).toBe('rate limited');
    expect(recorder.ofType('agent.turn.finished').some((t) => t.outcome === 'failed')).toBe(false);
    expect(finished.winnerId).toBe('a');
  });

  it("a Retry-After longer than the cap is a failed attempt with the provider's wait in the message, not a long sleep", async () => {
    const { recorder, finished } = await runScenario({
      a: [step.fail(429, 'quota exhausted', 3_600_000), ...policy('A', 'agent2')],
      b: policy('B', 'agent2'),
    });
    expect(recorder.ofType('agent.step.retrying').filter((r) => r.agentId === 'a')).toEqual([]);
    const failedTurn = recorder.ofType('agent.turn.finished').find((t) => t.agentId === 'a');
    expect(failedTurn?.outcome).toBe('failed');
    expect(failedTurn?.error?.message).toMatch(
      /quota exhausted — the provider asks to wait 3600s before retrying, longer than the 60s massgen waits/,
    );
    expect(finished.status).toBe('completed');
  });

  it('many agents share one abort listener per run: no MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const controller = new AbortController();
      const ids = Array.from({ length: 24 }, (_, i) => `agent${i + 1}`);
      const scripts = Object.fromEntries(ids.map((id) => [id, policy(`answer of ${id}`, 'agent1')]));
      const { finished } = await runScenario(scripts, { signal: controller.signal });
      expect(finished.status).toBe('completed');
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('a non-retryable error fails the turn at once; after max_agent_failures the agent is dropped and the others still reach consensus', async () => {
    const { recorder, backends, finished } = await runScenario({
      broken: [step.fail(401, 'HTTP 401: invalid api key'), step.fail(401, 'HTTP 401: invalid api key')],
      b: policy('B', 'agent2'),
      c: policy('C', 'agent2'),
    });
    const turns = recorder.ofType('agent.turn.finished').filter((t) => t.agentId === 'broken');
    expect(turns.map((t) => [t.outcome, t.consecutiveFailures])).toEqual([
      ['failed', 1],
      ['failed', 2],
    ]);
    expect(turns[0]?.error).toEqual({ code: 'provider_error', message: 'HTTP 401: invalid api key' });
    const dropped = recorder.ofType('agent.dropped');
    expect(dropped).toHaveLength(1);
    expect(dropped[0]?.reason).toMatch(/2 consecutive failed turns; last: HTTP 401/);
    expect(recorder.ofType('agent.step.retrying')).toHaveLength(0);
    expect(finished).toMatchObject({ status: 'completed', exitCode: 0, winnerId: 'b' });
    backends['broken']?.assertDone();
  });

  it('retries are bounded: a retryable error that persists fails the turn', async () => {
    const { recorder } = await runScenario(
      {
        a: [step.fail(500, 'boom', 0), step.fail(500, 'boom', 0), step.fail(500, 'boom', 0)],
        b: policy('B', 'agent2'),
      },
      { settings: { maxAgentFailures: 1 } },
    );
    expect(recorder.ofType('agent.step.retrying').filter((r) => r.agentId === 'a')).toHaveLength(2);
    expect(recorder.ofType('agent.dropped').map((d) => [d.agentId, d.reason])).toEqual([
      ['a', 'its turn failed; last: boom'],
    ]);
  });

  it('when every agent is dropped the run fails with exit code 2 and says why', async () => {
    const { finished, recorder } = await runScenario({
      a: [step.fail(401, 'bad key for a'), step.fail(401, 'bad key for a')],
      b: [step.fail(404, 'no such model'), step.fail(404, 'no such model')],
    });
    expect(finished).toMatchObject({ status: 'failed', exitCode: 2, winnerId: null, finalAnswer: null });
    expect(finished.error?.message).toBe('All agents failed — a: bad key for a; b: no such model');
    expect(recorder.ofType('coordination.finished')[0]?.reason).toBe('all_agents_failed');
  });

  it('a failure streak is reset by a successful turn', async () => {
    const aAnswered = gateOn(answered('b'));
    const { recorder } = await runScenario(
      {
        a: [
          step.fail(401, 'x'),
          step.answer('A'),
          step.fail(401, 'y'),
          lookupAfter(aAnswered),
          step.vote('agent1'),
          step.text('F'),
        ],
        b: [{ ...step.answer('B'), delayMs: 20 }, step.vote('agent1')],
      },
      { tools: true, onEvent: (e) => aAnswered.check(e) },
    );
    expect(recorder.ofType('agent.dropped')).toHaveLength(0);
    const aTurns = recorder.ofType('agent.turn.finished').filter((t) => t.agentId === 'a');
    expect(aTurns.map((t) => t.consecutiveFailures)).toEqual([1, 0, 1, 0]);
  });

  it('a single agent that keeps failing fails the run with exit code 2', async () => {
    const { finished } = await runScenario({ solo: [step.fail(401, 'denied'), step.fail(401, 'denied')] });
    expect(finished).toMatchObject({ status: 'failed', exitCode: 2 });
    expect(finished.error?.message).toContain('denied');
  });
});

describe('final presentation', () => {
  it('falls back to the stored answer verbatim when the presentation fails', async () => {
    const { recorder, finished } = await runScenario({
      a: [step.answer('Stored answer A'), step.vote('agent1'), step.fail(401, 'gone')],
      b: [{ ...step.vote('agent1'), delayMs: 10 }],
    });
    expect(finished.finalAnswer).toBe('Stored answer A');
    expect(recorder.ofType('presentation.finished')[0]).toMatchObject({
      fallback: true,
      error: { code: 'provider_error', message: 'gone' },
    });
  });

  it('falls back when the presentation is empty', async () => {
    const { finished, recorder } = await runScenario({
      a: [step.answer('Stored answer A'), step.vote('agent1'), step.text('   ')],
      b: [{ ...step.vote('agent1'), delayMs: 10 }],
    });
    expect(finished.finalAnswer).toBe('Stored answer A');
    expect(recorder.ofType('presentation.finished')[0]?.fallback).toBe(true);
  });

  it('final_presentation: verbatim skips the extra call', async () => {
    const { finished, backends, recorder } = await runScenario(
      {
        a: [step.answer('Stored answer A'), step.vote('agent1')],
        b: [{ ...step.vote('agent1'), delayMs: 10 }],
      },
      { settings: { finalPresentation: 'verbatim' } },
    );
    expect(finished.finalAnswer).toBe('Stored answer A');
    expect(recorder.ofType('presentation.started')[0]?.mode).toBe('verbatim');
    backends['a']?.assertDone();
  });

  it('the presenter sees all answers with real ids, its own marked, and the reasons of its votes', async () => {
    const { backends } = await runScenario({
      alice: policy('Alice says 4', 'agent1'),
      bob: policy('Bob says four', 'agent1'),
    });
    const presentation = backends['alice']?.requests.at(-1);
    const text = requestText(presentation);
    expect(presentation?.tools).toEqual([]);
    expect(text).toContain('<alice (agent1) — YOUR ANSWER>');
    expect(text).toContain('<bob (agent2)>');
    expect(text).toContain('- agent2: agent1 is right');
  });
});
