/**
 * Step mode in the core: one agent, one action, given the answers and votes so far. The record is
 * replayed with the protocol's own rules, the turn is the ordinary coordination turn, and a loop of
 * single steps reaches the winner the whole run reaches.
 */
import { describe, expect, it } from 'vitest';
import { Orchestrator } from '../../src/coordination/orchestrator.js';
import { stepStanding, type StepRecord, type StepRequest } from '../../src/coordination/step-action.js';
import { ScriptedBackend, step, type ScriptStep } from '../../src/testing/scripted-backend.js';
import type { RunEvent } from '../../src/types/events.js';
import { policy, requestText, runScenario, toolNames } from '../support/harness.js';

const settings = { agentTurnTimeoutMs: 5_000, orchestratorTimeoutMs: 10_000 };

/** Runs one step of `agentId` with its script; returns the events and its backend. */
async function oneStep(
  agentId: string,
  script: ScriptStep[],
  request: Omit<StepRequest, 'agentId'>,
  extra: { maxNewAnswersPerAgent?: number } = {},
) {
  const backend = new ScriptedBackend(script, { model: `model-${agentId}` });
  const orchestrator = new Orchestrator({
    agents: [{ id: agentId, backend }],
    settings: { ...settings, ...extra },
  });
  const events: RunEvent[] = [];
  for await (const event of orchestrator.run('What is the answer?', { step: { ...request, agentId } }))
    events.push(event);
  const finished = events.at(-1) as Extract<RunEvent, { type: 'run.finished' }>;
  return { events, backend, finished };
}

/** The record entry a step's events carry (an answer or a counted vote), or null. */
function recordOf(events: readonly RunEvent[]): StepRecord | null {
  for (const e of events) {
    if (e.type === 'answer.submitted') return { type: 'new_answer', agentId: e.agentId, content: e.content };
    if (e.type === 'vote.cast' && e.counted)
      return { type: 'vote', agentId: e.agentId, targetAgentId: e.targetAgentId, reason: e.reason };
  }
  return null;
}

describe('step mode (core)', () => {
  it('replays a record with the protocol rules: a new answer resets the votes of everyone who sees it', () => {
    const roster = ['a', 'b', 'c'];
    const record: StepRecord[] = [
      { type: 'new_answer', agentId: 'a', content: 'A1' },
      { type: 'vote', agentId: 'b', targetAgentId: 'a', reason: 'fine' },
      { type: 'new_answer', agentId: 'c', content: 'C1' },
      { type: 'vote', agentId: 'c', targetAgentId: 'c', reason: 'mine' },
    ];
    const standing = stepStanding(roster, record);
    expect(standing.votes).toEqual({ c: { targetAgentId: 'c', targetLabel: 'agent3.1' } });
    expect(standing.tallies).toEqual({ c: 1 });
    expect(standing.consensus).toBe(false);
    expect(standing.winnerId).toBe('c');
    expect(standing.agents.map((a) => a.latestLabel)).toEqual(['agent1.1', null, 'agent3.1']);

    const all = stepStanding(roster, [
      ...record,
      { type: 'vote', agentId: 'a', targetAgentId: 'c', reason: 'better' },
      { type: 'vote', agentId: 'b', targetAgentId: 'a', reason: 'still A' },
    ]);
    expect(all.consensus).toBe(true);
    expect(all.tallies).toEqual({ c: 2, a: 1 });
    expect(all.winnerId).toBe('c');
    expect(stepStanding(roster, [...record], 'majority').consensus).toBe(false);
  });

  it('one turn sees the recorded answers under their anonymous ids, votes, and never calls a peer', async () => {
    const { events, backend, finished } = await oneStep('b', [step.vote('agent1', 'A is right')], {
      roster: ['a', 'b'],
      record: [{ type: 'new_answer', agentId: 'a', content: 'The answer is 42.' }],
      action: 'turn',
    });
    expect(finished).toMatchObject({ status: 'completed', exitCode: 0, winnerId: null });
    expect(requestText(backend.requests[0])).toContain('The answer is 42.');
    expect(toolNames(backend.requests[0])).toEqual(['new_answer', 'vote']);
    expect(recordOf(events)).toEqual({
      type: 'vote',
      agentId: 'b',
      targetAgentId: 'a',
      reason: 'A is right',
    });
    expect(events.find((e) => e.type === 'agent.turn.finished')).toMatchObject({
      agentId: 'b',
      outcome: 'voted',
    });
    backend.assertDone();
  });

  it('keeps the answer limit across steps: past it an agent may only vote', async () => {
    const { backend, events } = await oneStep(
      'a',
      [step.vote('agent1')],
      { roster: ['a'], record: [{ type: 'new_answer', agentId: 'a', content: 'A1' }], action: 'turn' },
      { maxNewAnswersPerAgent: 1 },
    );
    expect(toolNames(backend.requests[0])).toEqual(['vote']);
    expect(events.find((e) => e.type === 'agent.turn.started')).toMatchObject({ turn: 2 });
  });

  it('a turn that cannot produce an action fails the step with the reason', async () => {
    const { finished } = await oneStep(
      'a',
      [step.text('no tool'), step.text('still none'), step.text('never')],
      {
        roster: ['a'],
        record: [],
        action: 'turn',
      },
    );
    expect(finished.status).toBe('failed');
    expect(finished.error?.message).toMatch(/misused the workflow tools/);
  });

  it('presents only for the winner', async () => {
    const record: StepRecord[] = [
      { type: 'new_answer', agentId: 'a', content: 'A1' },
      { type: 'vote', agentId: 'b', targetAgentId: 'a', reason: 'good' },
    ];
    const refused = await oneStep('b', [step.text('not me')], {
      roster: ['a', 'b'],
      record,
      action: 'present',
    });
    expect(refused.finished.status).toBe('failed');
    expect(refused.finished.error?.message).toMatch(/the winner is a/);
    const presented = await oneStep('a', [step.text('Final: 42')], {
      roster: ['a', 'b'],
      record,
      action: 'present',
    });
    expect(presented.finished).toMatchObject({
      status: 'completed',
      winnerId: 'a',
      finalAnswer: 'Final: 42',
    });
    expect(requestText(presented.backend.requests[0])).toContain('good');
  });

  it('a loop of single steps reaches the same winner as the whole run', async () => {
    const scripts = {
      alice: policy('Paris is the capital of France.', 'agent1'),
      bob: policy('The capital is Paris.', 'agent1'),
      carol: policy('It is Paris, France.', 'agent1'),
    };
    const whole = await runScenario(scripts);
    expect(whole.finished.status).toBe('completed');

    const roster = Object.keys(scripts);
    const record: StepRecord[] = [];
    let standing = stepStanding(roster, record);
    for (let round = 0; round < 4 && !standing.consensus; round++) {
      for (const id of roster) {
        if (standing.votes[id]) continue; // holds a current vote: nothing new to look at
        const { events } = await oneStep(id, scripts[id as 'alice'], {
          roster,
          record,
          action: 'turn',
        });
        const entry = recordOf(events);
        if (entry) record.push(entry);
        standing = stepStanding(roster, record);
      }
    }
    expect(standing.consensus).toBe(true);
    expect(standing.winnerId).toBe(whole.finished.winnerId);
    const final = await oneStep(standing.winnerId!, scripts[standing.winnerId as 'alice'], {
      roster,
      record,
      action: 'present',
    });
    expect(final.finished.finalAnswer).toBe(whole.finished.finalAnswer);
  });
});
