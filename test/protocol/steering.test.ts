import { describe, expect, it } from 'vitest';
import { Orchestrator, type RunStream } from '../../src/coordination/orchestrator.js';
import type { CoordinationSettings } from '../../src/coordination/settings.js';
import { EventRecorder } from '../../src/testing/event-recorder.js';
import { gate, ScriptedBackend, step, type ScriptStep } from '../../src/testing/scripted-backend.js';
import type { RunEvent } from '../../src/types/events.js';
import { answered, countedVote, gateOn, lookupAfter, lookupTool, requestText } from '../support/harness.js';

/** Runs scripted agents; `onEvent` gets the run's stream too, to steer it as events arrive. */
async function steeredRun(
  scripts: Record<string, ScriptStep[]>,
  onEvent: (event: RunEvent, run: RunStream, seen: EventRecorder) => void,
  settings: Partial<CoordinationSettings> = {},
) {
  const backends: Record<string, ScriptedBackend> = {};
  for (const [id, steps] of Object.entries(scripts))
    backends[id] = new ScriptedBackend(steps, { model: `model-${id}` });
  const orchestrator = new Orchestrator({
    agents: Object.entries(backends).map(([id, backend]) => ({
      id,
      backend,
      tools: lookupTool,
      maxRetries: 0,
    })),
    settings: { agentTurnTimeoutMs: 20_000, orchestratorTimeoutMs: 60_000, ...settings },
  });
  const recorder = new EventRecorder();
  const run = orchestrator.run('What is the capital of France?');
  for await (const event of run) {
    recorder.events.push(event);
    onEvent(event, run, recorder);
  }
  return { recorder, backends, finished: recorder.finished, run };
}

const NOTE = '[Message from the user]';
const stepStarted = (agentId: string, step: number) => (e: RunEvent) =>
  e.type === 'agent.step.started' && e.agentId === agentId && e.step === step && e.phase === 'coordination';

describe('steering: messages from the user', () => {
  it('a message sent mid-run reaches every agent at its next step, marked as the user’s', async () => {
    const sent = gate();
    let seq = -1;
    let bothStarted = 0;
    const { recorder, backends, finished } = await steeredRun(
      {
        // a is mid-turn (its first step calls a tool after the message was sent): its next step reads it.
        a: [lookupAfter(sent), step.answer('Paris.'), step.vote('agent1'), step.text('Final: Paris')],
        // b's first call is held until the message was sent; its next turn starts with it.
        b: [{ ...step.answer('It is Paris.'), waitFor: sent.wait }, step.vote('agent1')],
      },
      (event, run) => {
        if (stepStarted('a', 1)(event) || stepStarted('b', 1)(event)) bothStarted++;
        if (bothStarted === 2 && seq === -1) {
          const result = run.steer({ text: 'Please answer in French.', source: 'terminal' });
          expect(result.accepted).toBe(true);
          if (result.accepted) seq = result.seq;
          sent.open();
        }
      },
    );
    expect(finished.status).toBe('completed');
    const message = recorder.ofType('human.message')[0];
    expect(message).toMatchObject({
      text: 'Please answer in French.',
      target: null,
      source: 'terminal',
      seq,
    });

    // a: the same conversation continues; its second request carries the note after the tool result.
    const aSecond = backends['a']?.requests[1];
    expect(requestText(backends['a']?.requests[0])).not.toContain(NOTE);
    expect(aSecond?.messages.at(-1)).toMatchObject({ role: 'user' });
    expect(aSecond?.messages.at(-1)?.content).toContain(`${NOTE}`);
    expect(aSecond?.messages.at(-1)?.content).toContain('Please answer in French.');
    // b: its next turn opens with it.
    expect(requestText(backends['b']?.requests[1])).toContain('Please answer in French.');
    // The note is never mistaken for a peer's answer: it is outside the answers block.
    const bOpening = backends['b']?.requests[1]?.messages.find((m) => m.role === 'user')?.content ?? '';
    expect(bOpening.indexOf(NOTE)).toBeGreaterThan(bOpening.lastIndexOf('<end of agent'));

    const delivered = recorder.ofType('human.message.delivered');
    expect(delivered.map((d) => [d.agentId, d.messageSeq]).sort()).toEqual([
      ['a', seq],
      ['b', seq],
    ]);
    // Each agent reads it once; the presenter's new conversation restates it (no second delivery).
    expect(requestText(backends['a']?.requests.at(-1))).toContain('Please answer in French.');
    for (const d of delivered) expect(d.seq).toBeGreaterThan(seq);
  });

  it('a message for one agent reaches only that agent', async () => {
    const sent = gate();
    let seq = -1;
    const { recorder, backends } = await steeredRun(
      {
        a: [{ ...step.answer('Paris.'), waitFor: sent.wait }, step.vote('agent1'), step.text('Final: Paris')],
        b: [lookupAfter(sent), step.answer('It is Paris.'), step.vote('agent1')],
      },
      (event, run) => {
        if (stepStarted('b', 1)(event) && seq === -1) {
          const result = run.steer({ text: 'Check the population too.', agentId: 'b', source: 'web' });
          if (result.accepted) seq = result.seq;
          sent.open();
        }
      },
    );
    expect(recorder.ofType('human.message')[0]).toMatchObject({ target: 'b', source: 'web', seq });
    expect(requestText(backends['b']?.requests[1])).toContain('Check the population too.');
    for (const request of backends['a']?.requests ?? [])
      expect(requestText(request)).not.toContain('Check the population too.');
    expect(recorder.ofType('human.message.delivered').map((d) => d.agentId)).toEqual(['b']);
  });

  it('the agents it is for lose their counted votes and look again with the message', async () => {
    const aVoted = gateOn(countedVote('a'));
    const resent = gate();
    const { recorder, backends, finished } = await steeredRun(
      {
        a: [
          step.answer('Paris.'),
          step.vote('agent1'),
          // Reset by b's answer: a votes again.
          step.vote('agent2'),
          // After the message: a new turn that reads it, then a vote.
          step.vote('agent2', 'b mentions the country'),
        ],
        b: [
          { ...step.answer('Paris, France.'), waitFor: aVoted.wait },
          // Cast before b read the message (it was sent while this call ran): not counted.
          { ...step.vote('agent2'), waitFor: resent.wait },
          step.vote('agent2'),
          step.text('Final: Paris, France'),
        ],
      },
      (event, run) => {
        aVoted.check(event);
        // b answered, so a's vote was reset by it; a votes again (counted), then the user writes.
        if (
          event.type === 'vote.cast' &&
          event.agentId === 'a' &&
          event.counted &&
          event.targetLabel === 'agent2.1' &&
          !resent.isOpen
        ) {
          expect(run.steer({ text: 'Mention the country.' }).accepted).toBe(true);
          resent.open();
        }
      },
    );
    expect(finished.status).toBe('completed');
    const reset = recorder.ofType('votes.reset').find((r) => r.causedBy === 'user');
    expect(reset?.clearedVoters).toEqual(['a']);
    expect(reset!.seq).toBe(recorder.ofType('human.message')[0]!.seq + 1);
    // a took another turn, which opened with the message.
    const last = backends['a']?.requests.filter((r) => r.tools.some((t) => t.name === 'vote')).at(-1);
    expect(requestText(last)).toContain('Mention the country.');
    expect(recorder.ofType('human.message')[0]?.source).toBe('api');
    expect(
      recorder
        .ofType('vote.cast')
        .filter((v) => v.agentId === 'b')
        .map((v) => v.counted),
    ).toEqual([false, true]);
  });

  it('a vote cast before the agent read a message does not count; the reply carries the message', async () => {
    const sent = gate();
    const { recorder, backends } = await steeredRun(
      {
        a: [
          step.answer('Paris.'),
          { ...step.vote('agent1'), waitFor: sent.wait },
          step.vote('agent1'),
          step.text('Final'),
        ],
        b: [step.answer('Paris!'), step.vote('agent1')],
      },
      (event, run, seen) => {
        if (stepStarted('a', 1)(event) && event.seq > 0 && !sent.isOpen) {
          const turns = seen.ofType('agent.turn.started').filter((t) => t.agentId === 'a');
          if (turns.length < 2) return;
          run.steer({ text: 'Prefer short answers.', agentId: 'a' });
          sent.open();
        }
      },
    );
    const aVotes = recorder.ofType('vote.cast').filter((v) => v.agentId === 'a');
    expect(aVotes.map((v) => v.counted)).toEqual([false, true]);
    const reply = backends['a']?.requests[2]?.messages.at(-1);
    expect(reply).toMatchObject({ role: 'tool', toolName: 'vote' });
    expect(reply?.content).toMatch(/not counted: the user sent a message/);
    expect(reply?.content).toContain('Prefer short answers.');
  });

  it('refuses empty or oversized text, an unknown agent (naming the known ones), and a finished run', async () => {
    const results: unknown[] = [];
    const { run } = await steeredRun(
      { a: [step.answer('Paris.'), step.vote('agent1')], b: [step.answer('Paris!'), step.vote('agent1')] },
      (event, stream) => {
        if (event.type !== 'run.started') return;
        results.push(stream.steer({ text: '   ' }));
        results.push(stream.steer({ text: 'x'.repeat(4001) }));
        results.push(stream.steer({ text: 'hi', agentId: 'zed' }));
      },
      { finalPresentation: 'verbatim' },
    );
    expect(results).toMatchObject([
      { accepted: false, reason: 'invalid_text' },
      { accepted: false, reason: 'invalid_text' },
      { accepted: false, reason: 'unknown_agent', message: expect.stringContaining('a, b') },
    ]);
    expect(run.steer({ text: 'too late' })).toMatchObject({ accepted: false, reason: 'not_running' });
    expect(run.answerNow()).toMatchObject({ accepted: false, reason: 'not_running' });
  });
});

describe('steering: answer now', () => {
  it('stops coordination and the most-voted answer’s author presents it', async () => {
    const aDone = gateOn(answered('a'));
    const bDone = gateOn(answered('b'));
    let result: unknown = null;
    const { recorder, finished } = await steeredRun(
      {
        a: [step.answer('Paris.'), step.hang()],
        b: [
          { ...step.answer('Paris, the capital.'), waitFor: aDone.wait },
          step.hang(),
          step.text('Final: Paris, the capital'),
        ],
        c: [lookupAfter(bDone), step.vote('agent2', 'b is right'), step.hang()],
      },
      (event, run) => {
        aDone.check(event);
        bDone.check(event);
        // Both answers exist and c's vote for b counts; a and b are in their second turns.
        if (countedVote('c')(event) && result === null) result = run.answerNow('web');
      },
    );
    expect(result).toEqual({ accepted: true });
    expect(recorder.ofType('coordination.answer_now')).toMatchObject([{ source: 'web' }]);
    expect(recorder.ofType('coordination.finished')[0]).toMatchObject({
      reason: 'answer_now',
      winnerId: 'b',
      winnerLabel: 'agent2.1',
    });
    expect(finished).toMatchObject({
      status: 'completed',
      exitCode: 0,
      winnerId: 'b',
      finalAnswer: 'Final: Paris, the capital',
    });
    // The turns in flight were abandoned, not failed.
    const ended = recorder.ofType('agent.turn.finished').filter((t) => t.outcome === 'failed');
    expect(ended).toEqual([]);
  });

  it('without votes, presents by the timeout rule (the earliest answer); refused before any answer', async () => {
    const refusals: unknown[] = [];
    const aAnswered = gateOn(answered('a'));
    let accepted: unknown = null;
    const { recorder, finished } = await steeredRun(
      {
        a: [step.answer('Paris.'), step.hang(), step.text('Final: Paris')],
        b: [{ ...step.answer('Paris!'), waitFor: () => aAnswered.wait() }, step.hang()],
      },
      (event, run) => {
        if (event.type === 'agent.step.started' && refusals.length === 0) refusals.push(run.answerNow());
        aAnswered.check(event);
        if (event.type === 'answer.submitted' && event.agentId === 'b') accepted = run.answerNow('terminal');
      },
    );
    expect(refusals).toMatchObject([{ accepted: false, reason: 'no_answer' }]);
    expect(accepted).toEqual({ accepted: true });
    expect(recorder.ofType('coordination.finished')[0]).toMatchObject({
      reason: 'answer_now',
      winnerId: 'a',
    });
    expect(finished.finalAnswer).toBe('Final: Paris');
  });
});

describe('what an agent is writing', () => {
  it('a vote whose arguments stream shows as a `vote` tool call from its start until it is written', async () => {
    const streamedVote = (target: string) => ({
      toolCalls: [{ name: 'vote', arguments: { agent_id: target, reason: 'fine' }, streamInput: true }],
    });
    const { recorder } = await steeredRun(
      {
        a: [step.answer('Paris.'), streamedVote('agent1'), step.text('Final')],
        b: [step.answer('Paris!'), step.vote('agent1')],
      },
      () => {},
    );
    const aEvents = recorder.events.filter(
      (e) =>
        'agentId' in e &&
        e.agentId === 'a' &&
        ['tool.call.started', 'tool.call.finished', 'vote.cast'].includes(e.type),
    );
    expect(aEvents.map((e) => e.type)).toEqual(['tool.call.started', 'tool.call.finished', 'vote.cast']);
    expect(aEvents[0]).toMatchObject({ toolName: 'vote', phase: 'coordination' });
    expect(aEvents[1]).toMatchObject({
      toolName: 'vote',
      isError: false,
      callId: (aEvents[0] as { callId: string }).callId,
    });
    // Without streamed input (b), nothing but the vote itself.
    expect(recorder.ofType('tool.call.started').filter((e) => e.agentId === 'b')).toEqual([]);
  });
});
