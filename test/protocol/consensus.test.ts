import { describe, expect, it } from 'vitest';
import { step } from '../../src/testing/scripted-backend.js';
import {
  answered,
  countedVote,
  gateOn,
  lookupAfter,
  policy,
  requestText,
  runScenario,
  toolNames,
} from '../support/harness.js';

describe('consensus', () => {
  it('three agents converge on the most-voted answer, which its author presents', async () => {
    const { recorder, finished } = await runScenario({
      alice: policy('Paris is the capital of France.', 'agent1'),
      bob: policy('The capital is Paris.', 'agent1'),
      carol: policy('It is Paris, France.', 'agent1'),
    });
    expect(finished.status).toBe('completed');
    expect(finished.exitCode).toBe(0);
    expect(finished.winnerId).toBe('alice');
    expect(finished.finalAnswer).toBe('Final: Paris is the capital of France.');
    const end = recorder.ofType('coordination.finished')[0];
    expect(end).toMatchObject({
      reason: 'consensus',
      winnerId: 'alice',
      winnerLabel: 'agent1.1',
      tallies: { alice: 3 },
    });
    // Every agent answered exactly once: later turns saw answers and voted.
    expect(
      recorder
        .ofType('answer.submitted')
        .map((e) => e.label)
        .sort(),
    ).toEqual(['agent1.1', 'agent2.1', 'agent3.1']);
    const presentation = recorder.ofType('presentation.finished')[0];
    expect(presentation).toMatchObject({ agentId: 'alice', label: 'agent1.final', fallback: false });
    expect(finished.usage['alice']?.inputTokens).toBeGreaterThan(0);
  });

  it('a new answer resets votes and reaches an in-flight agent as an update in the same conversation', async () => {
    const aAnswered = gateOn(answered('a'));
    const cVoted = gateOn(countedVote('c'));
    const bAnswered = gateOn(answered('b'));
    const { recorder, backends, finished } = await runScenario(
      {
        a: [
          step.answer('Answer A1: forty-two'),
          lookupAfter(bAnswered),
          step.vote('agent2', 'B is better'),
          step.text('unused'),
        ],
        b: [
          { ...step.answer('Answer B1: forty-two, because six times seven'), waitFor: cVoted.wait },
          step.vote('agent2'),
          step.text('Final B'),
        ],
        c: [lookupAfter(aAnswered), step.vote('agent1', 'A is fine'), step.vote('agent2', 'B explains')],
      },
      {
        tools: true,
        onEvent: (e) => [aAnswered, cVoted, bAnswered].forEach((g) => g.check(e)),
      },
    );
    expect(finished.winnerId).toBe('b');
    expect(finished.finalAnswer).toBe('Final B');

    // c's first vote counted for agent1.1, then was cleared by b's answer.
    const votes = recorder.ofType('vote.cast');
    expect(votes.find((v) => v.agentId === 'c')).toMatchObject({ targetLabel: 'agent1.1', counted: true });
    const reset = recorder.ofType('votes.reset').find((r) => r.causedBy === 'agent2.1');
    expect(reset?.clearedVoters).toEqual(['c']);

    // a was mid-turn (after its lookup call) when b answered: it got the update, not a new conversation.
    const update = recorder.ofType('agent.update.injected').find((u) => u.agentId === 'a');
    expect(update?.labels).toEqual(['agent2.1']);
    const aSecondTurnStep2 = backends['a']?.requests[2];
    expect(requestText(aSecondTurnStep2)).toContain('UPDATE');
    expect(requestText(aSecondTurnStep2)).toContain('six times seven');
    expect(
      aSecondTurnStep2?.messages.some((m) => m.role === 'tool' && m.content.includes('lookup result')),
    ).toBe(true);
    // The refreshed votable set offers agent2 now.
    const voteTool = aSecondTurnStep2?.tools.find((t) => t.name === 'vote');
    expect(
      (voteTool?.parameters as { properties: { agent_id: { enum: string[] } } }).properties.agent_id.enum,
    ).toEqual(['agent1', 'agent2']);
    expect(recorder.ofType('coordination.finished')[0]?.tallies).toEqual({ b: 3 });
    // a's fourth scripted step was never needed: a's presentation did not happen.
    expect(backends['a']?.remaining).toBe(1);
    backends['b']?.assertDone();
    backends['c']?.assertDone();
  });

  it('ties go to the agent earliest in config order', async () => {
    const { recorder, finished } = await runScenario({
      first: policy('Answer from first', 'agent2'),
      second: policy('Answer from second', 'agent1'),
    });
    expect(recorder.ofType('coordination.finished')[0]?.tallies).toEqual({ first: 1, second: 1 });
    expect(finished.winnerId).toBe('first');
  });

  it('an agent may vote for its own answer', async () => {
    const { finished, recorder } = await runScenario({
      a: policy('A', 'agent1'),
      b: policy('B', 'agent1'),
    });
    expect(
      recorder.ofType('vote.cast').some((v) => v.agentId === 'a' && v.targetAgentId === 'a' && v.counted),
    ).toBe(true);
    expect(finished.winnerId).toBe('a');
  });

  it('vote is not offered while no answer exists, and models only ever see anonymous ids', async () => {
    const { backends } = await runScenario({
      alice_real_id: policy('Answer one', 'agent1'),
      bob_real_id: policy('Answer two', 'agent1'),
    });
    const first = backends['alice_real_id']?.requests[0];
    expect(toolNames(first)).toEqual(['new_answer']);
    expect(requestText(first)).toContain('no answers have been submitted yet');
    for (const backend of Object.values(backends)) {
      for (const request of backend.requests) {
        if (!request.tools.some((t) => t.name === 'new_answer')) continue; // the presentation shows real ids on purpose
        expect(requestText(request)).not.toMatch(/alice_real_id|bob_real_id/);
      }
    }
    const later = backends['bob_real_id']?.requests.find((r) => toolNames(r).includes('vote'));
    expect(requestText(later)).toMatch(/<agent1>[\s\S]*Answer one[\s\S]*<end of agent1>/);
  });

  it('answers are rotated per viewer to counter position bias, deterministically', async () => {
    const { backends } = await runScenario({
      a: policy('Alpha answer', 'agent1'),
      b: policy('Beta answer', 'agent1'),
    });
    const viewOf = (id: string) => {
      const request = backends[id]?.requests.find(
        (r) => (requestText(r).match(/<end of agent\d>/g) ?? []).length === 2,
      );
      const text = requestText(request);
      return text.indexOf('<agent1>') < text.indexOf('<agent2>') ? 'agent1-first' : 'agent2-first';
    };
    expect(viewOf('a')).toBe('agent1-first');
    expect(viewOf('b')).toBe('agent2-first');
  });

  it('earlier turns of a session are part of what every agent sees', async () => {
    const { backends } = await runScenario(
      { a: policy('Seven', 'agent1'), b: policy('7', 'agent1') },
      { history: [{ question: 'Pick a number', answer: 'Three' }], question: 'Add four to it' },
    );
    const text = requestText(backends['b']?.requests[0]);
    expect(text).toContain('Pick a number');
    expect(text).toContain('Three');
    expect(text).toContain('Add four to it');
  });
});
