import { describe, expect, it } from 'vitest';
import { step } from '../../src/testing/scripted-backend.js';
import { answered, gateOn, lookupAfter, policy, requestText, runScenario } from '../support/harness.js';

describe('workflow enforcement', () => {
  it('a vote before any answer is refused with instructions and the model tries again', async () => {
    const aAnswered = gateOn(answered('a'));
    const { recorder, backends, finished } = await runScenario(
      {
        a: [step.vote('agent2', 'eager'), step.answer('A'), step.vote('agent1'), step.text('Final A')],
        b: [lookupAfter(aAnswered), step.vote('agent1')],
      },
      { tools: true, onEvent: (e) => aAnswered.check(e) },
    );
    const rejected = recorder.ofType('workflow.rejected');
    expect(rejected[0]).toMatchObject({ agentId: 'a', toolName: 'vote', retriesLeft: 2 });
    expect(rejected[0]?.reason).toMatch(/no answers to vote for/);
    // The model saw the refusal as a tool error on its vote call.
    const retry = backends['a']?.requests[1];
    expect(retry?.messages.at(-1)).toMatchObject({ role: 'tool', toolName: 'vote', isError: true });
    expect(finished.winnerId).toBe('a');
    Object.values(backends).forEach((b) => b.assertDone());
  });

  it('a vote for an unknown id is refused and names the valid ids', async () => {
    const aAnswered = gateOn(answered('a'));
    const { recorder, finished } = await runScenario(
      {
        a: [step.answer('A'), step.vote('agent1'), step.text('Final A')],
        b: [lookupAfter(aAnswered), step.vote('agent7'), step.vote('agent1')],
      },
      { tools: true, onEvent: (e) => aAnswered.check(e) },
    );
    const rejected = recorder.ofType('workflow.rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.reason).toContain(
      '"agent7" is not an agent with a current answer. Vote for one of: agent1',
    );
    expect(finished.winnerId).toBe('a');
  });

  it('text without a workflow call, and two workflow calls at once, are refused', async () => {
    const { recorder, finished } = await runScenario({
      a: [
        step.text('I think the answer is A', { delayMs: 20 }),
        {
          toolCalls: [
            { name: 'new_answer', arguments: { content: 'A' } },
            { name: 'vote', arguments: { agent_id: 'agent1', reason: 'x' } },
          ],
        },
        step.answer('A'),
        step.vote('agent1'),
        step.text('Final A'),
      ],
      b: [step.answer('B'), step.vote('agent2'), step.vote('agent1')],
    });
    const reasons = recorder.ofType('workflow.rejected').filter((r) => r.agentId === 'a');
    expect(reasons.map((r) => r.retriesLeft)).toEqual([2, 1]);
    expect(reasons[0]?.reason).toMatch(/did not finish your turn/);
    expect(reasons[1]?.reason).toMatch(/exactly one workflow tool/);
    expect(finished.status).toBe('completed');
  });

  it('exhausting the enforcement retries fails the turn', async () => {
    const { recorder, finished } = await runScenario(
      {
        a: [step.text('no tool'), step.text('still no tool'), step.text('never')],
        b: [step.answer('B'), step.vote('agent2'), step.text('Final B')],
      },
      { settings: { maxAgentFailures: 1 } },
    );
    const rejected = recorder.ofType('workflow.rejected').filter((r) => r.agentId === 'a');
    expect(rejected.map((r) => r.retriesLeft)).toEqual([2, 1, 0]);
    const failedTurn = recorder.ofType('agent.turn.finished').find((t) => t.agentId === 'a');
    expect(failedTurn).toMatchObject({ outcome: 'failed', error: { code: 'model_behaviour_error' } });
    expect(recorder.ofType('agent.dropped')[0]?.agentId).toBe('a');
    expect(finished.winnerId).toBe('b');
  });

  it('malformed workflow arguments are refused', async () => {
    const { recorder } = await runScenario({
      a: [
        { toolCalls: [{ name: 'new_answer', arguments: '{not json' }] },
        step.answer('A'),
        step.vote('agent1'),
        step.text('F'),
      ],
      b: [
        { toolCalls: [{ name: 'new_answer', arguments: { content: '   ' } }] },
        step.answer('B'),
        step.vote('agent1'),
      ],
    });
    const reasons = recorder.ofType('workflow.rejected').map((r) => r.reason);
    expect(reasons).toContain('The arguments of new_answer must be a JSON object.');
    expect(reasons).toContain('new_answer needs a non-empty "content" string.');
  });
});

describe('answer rules', () => {
  it('beyond max_new_answers_per_agent, new_answer is refused with an instruction to vote', async () => {
    const { recorder, finished, backends } = await runScenario(
      {
        a: [
          step.answer('First answer from a'),
          step.answer('A second, different answer from a'),
          step.vote('agent1'),
          step.text('F'),
        ],
        b: [{ ...step.vote('agent1'), delayMs: 5 }],
      },
      { settings: { maxNewAnswersPerAgent: 1 } },
    );
    const refusal = recorder.ofType('workflow.rejected').find((r) => r.agentId === 'a');
    expect(refusal?.reason).toMatch(/maximum of 1 answers\. Vote/);
    // Past the limit new_answer is no longer offered (a model that calls it anyway is refused, above).
    const afterLimit = backends['a']?.requests[1];
    expect(afterLimit?.tools.map((t) => t.name)).toEqual(['vote']);
    expect(recorder.ofType('answer.submitted').filter((a) => a.agentId === 'a')).toHaveLength(1);
    expect(finished.winnerId).toBe('a');
  });

  it('an answer identical to a current answer is refused, even when novelty is lenient', async () => {
    const aAnswered = gateOn(answered('a'));
    const { recorder } = await runScenario(
      {
        a: [step.answer('The answer is 42.'), step.vote('agent1'), step.text('F')],
        b: [lookupAfter(aAnswered), step.answer('  The answer is 42.  '), step.vote('agent1')],
      },
      { tools: true, onEvent: (e) => aAnswered.check(e) },
    );
    const refusal = recorder.ofType('workflow.rejected').find((r) => r.agentId === 'b');
    expect(refusal?.reason).toMatch(/identical to the current answer of agent1/);
  });

  it.each([
    ['balanced', 'The quick brown fox jumps over the lazy dog today', true],
    ['balanced', 'A completely different sentence about cats', false],
    ['strict', 'The quick brown fox jumps over a sleepy cat', true],
    ['lenient', 'The quick brown fox jumps over the lazy dog today', false],
  ] as const)(
    'novelty %s refuses near-duplicates (%s → refused: %s)',
    async (requirement, second, refused) => {
      const aAnswered = gateOn(answered('a'));
      const { recorder } = await runScenario(
        {
          a: [
            step.answer('The quick brown fox jumps over the lazy dog'),
            step.vote('agent1'),
            step.text('F'),
          ],
          b: [lookupAfter(aAnswered), step.answer(second), step.vote('agent1')],
        },
        {
          tools: true,
          settings: { answerNoveltyRequirement: requirement },
          onEvent: (e) => aAnswered.check(e),
        },
      );
      const refusal = recorder.ofType('workflow.rejected').find((r) => r.agentId === 'b');
      expect(Boolean(refusal)).toBe(refused);
      if (refused) expect(refusal?.reason).toMatch(/too similar to the current answer of agent1/);
    },
  );
});

describe('stale views', () => {
  it('a vote cast on a stale view is not counted; the agent gets the update and the revised answer needs a new vote', async () => {
    const aAnswered = gateOn(answered('a'));
    const bSawA1 = gateOn((e) => e.type === 'agent.update.injected' && e.agentId === 'b');
    const a2 = gateOn((e) => e.type === 'answer.submitted' && e.label === 'agent1.2');
    const { recorder, backends, finished } = await runScenario(
      {
        a: [
          step.answer('A1: the first draft'),
          { ...step.answer('A2: a revised and much better version'), waitFor: bSawA1.wait },
          step.vote('agent1'),
          step.text('Final A2'),
        ],
        b: [
          lookupAfter(aAnswered),
          { ...step.vote('agent1', 'A1 is good'), waitFor: a2.wait },
          step.vote('agent1', 'A2 is good'),
        ],
      },
      { tools: true, onEvent: (e) => [aAnswered, bSawA1, a2].forEach((g) => g.check(e)) },
    );
    const bVotes = recorder.ofType('vote.cast').filter((v) => v.agentId === 'b');
    expect(bVotes.map((v) => [v.targetLabel, v.counted])).toEqual([
      ['agent1.1', false],
      ['agent1.2', true],
    ]);
    // The stale vote was answered with the update, as a (non-error) tool result.
    const third = backends['b']?.requests[2];
    expect(third?.messages.at(-1)).toMatchObject({ role: 'tool', toolName: 'vote', isError: false });
    expect(requestText(third)).toContain('A2: a revised and much better version');
    expect(recorder.ofType('workflow.rejected')).toHaveLength(0);
    expect(finished.finalAnswer).toBe('Final A2');
  });
});

describe('single agent', () => {
  it('answers once without workflow tools and presents that answer', async () => {
    const { recorder, backends, finished } = await runScenario({ solo: [step.text('Direct answer.')] });
    expect(finished).toMatchObject({
      status: 'completed',
      exitCode: 0,
      winnerId: 'solo',
      finalAnswer: 'Direct answer.',
    });
    expect(backends['solo']?.requests).toHaveLength(1);
    expect(backends['solo']?.requests[0]?.tools).toEqual([]);
    expect(recorder.ofType('vote.cast')).toHaveLength(0);
    expect(recorder.ofType('coordination.finished')[0]?.reason).toBe('single_agent');
    expect(recorder.ofType('answer.submitted')[0]?.label).toBe('agent1.1');
  });

  it('policy helpers also drive a single agent', async () => {
    const { finished } = await runScenario({ solo: policy('x', 'agent1') });
    expect(finished.finalAnswer).toBe('Final: x');
  });
});
