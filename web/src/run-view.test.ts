import { describe, expect, it } from 'vitest';
import { step } from '../../src/testing/scripted-backend.js';
import type { RunEvent } from '../../src/types/events.js';
import { answered, gateOn, lookupAfter, runScenario } from '../../test/support/harness.js';
import { initialRunView, reduceRunView, replay } from './run-view.js';

/**
 * The page's reducer over a real event stream (scripted models through the real orchestrator): c votes
 * for agent1.1, b's answer resets it, everyone converges on b. Replaying the log, feeding it twice, or
 * catching up from the middle all give the same view.
 */
async function resetScenario(): Promise<RunEvent[]> {
  const aAnswered = gateOn(answered('a'));
  const bAnswered = gateOn(answered('b'));
  const cVoted = gateOn((e) => e.type === 'vote.cast' && e.agentId === 'c');
  const { recorder } = await runScenario(
    {
      a: [step.answer('A1'), lookupAfter(bAnswered), step.vote('agent2', 'B is better'), step.text('unused')],
      b: [{ ...step.answer('B1'), waitFor: cVoted.wait }, step.vote('agent2'), step.text('Final **B**')],
      c: [lookupAfter(aAnswered), step.vote('agent1', 'A is fine'), step.vote('agent2', 'B explains')],
    },
    { tools: true, onEvent: (e) => [aAnswered, bAnswered, cVoted].forEach((g) => g.check(e)) },
  );
  return recorder.events;
}

describe('the run view reducer', () => {
  it('keeps each agent transcript by turn, strikes reset votes, and ends with the presented answer', async () => {
    const events = await resetScenario();
    const view = replay(events);
    expect(view.run.winnerId).toBe('b');
    expect(view.presentation).toBe('Final **B**');
    expect(view.streams['c']?.turns.length).toBeGreaterThanOrEqual(2);
    const cVotes = view.votes.filter((v) => v.voterId === 'c');
    expect(cVotes[0]).toMatchObject({ label: 'agent1.1', counted: true, struck: 'reset' });
    expect(cVotes.at(-1)).toMatchObject({ label: 'agent2.1', struck: null });
    expect(
      view.votes
        .filter((v) => v.struck === null)
        .map((v) => v.voterId)
        .sort(),
    ).toEqual(['a', 'b', 'c']);
    expect(view.timeline.some((t) => /agent2\.1 reset the votes of c/.test(t.text))).toBe(true);
    expect(view.approvals).toEqual([]);
    expect(view.lastSeq).toBe(events.at(-1)?.seq);
  });

  it('ignores events it has seen, so a reconnect that replays from any point never doubles anything', async () => {
    const events = await resetScenario();
    const whole = replay(events);
    const cut = Math.floor(events.length / 2);
    let view = replay(events.slice(0, cut));
    // The socket drops; the catch-up overlaps what was already shown.
    for (const event of events.slice(cut - 5)) view = reduceRunView(view, event);
    expect(view).toEqual(whole);
    expect(events.reduce(reduceRunView, whole)).toBe(whole);
  });

  it('tracks held tool calls until they are resolved', () => {
    const base = { runId: 'r', ts: 0 };
    let view = reduceRunView(initialRunView(), {
      ...base,
      seq: 0,
      type: 'tool.approval.requested',
      agentId: 'a',
      callId: 'c1',
      toolName: 'write_file',
      arguments: { path: 'x' },
    } as RunEvent);
    expect(view.approvals).toEqual([
      { agentId: 'a', callId: 'c1', toolName: 'write_file', arguments: '{"path":"x"}' },
    ]);
    view = reduceRunView(view, {
      ...base,
      seq: 1,
      type: 'tool.approval.resolved',
      agentId: 'a',
      callId: 'c1',
      toolName: 'write_file',
      approved: false,
    } as RunEvent);
    expect(view.approvals).toEqual([]);
    expect(view.timeline.map((t) => t.text)).toEqual(['write_file waits for approval', 'write_file denied']);
  });
});

describe('steering in the run view', () => {
  const base = { runId: 'r', ts: 0 };
  const events = [
    {
      ...base,
      seq: 0,
      type: 'run.started',
      question: 'q',
      settings: {},
      agents: ['a', 'b'].map((agentId, i) => ({
        agentId,
        anonymousId: `agent${i + 1}`,
        backendType: 'x',
        model: 'm',
      })),
    },
    { ...base, seq: 1, type: 'agent.turn.started', agentId: 'a', turn: 1, visibleAnswers: [] },
    { ...base, seq: 2, type: 'agent.turn.started', agentId: 'b', turn: 1, visibleAnswers: [] },
    { ...base, seq: 3, type: 'human.message', text: 'Use metric units', target: null, source: 'web' },
    { ...base, seq: 4, type: 'human.message.delivered', agentId: 'b', messageSeq: 3 },
    {
      ...base,
      seq: 5,
      type: 'tool.call.started',
      agentId: 'a',
      phase: 'coordination',
      callId: 'c',
      toolName: 'write_file',
      arguments: {},
    },
    {
      ...base,
      seq: 6,
      type: 'tool.call.finished',
      agentId: 'a',
      phase: 'coordination',
      callId: 'c',
      toolName: 'write_file',
      result: 'ok',
      isError: false,
      durationMs: 1,
    },
    { ...base, seq: 7, type: 'human.message.delivered', agentId: 'a', messageSeq: 3 },
    { ...base, seq: 8, type: 'coordination.answer_now', source: 'web' },
  ] as unknown as RunEvent[];

  it('puts the message in the timeline at its place, marks each delivery, and shows it in the turn that got it', () => {
    const view = replay(events);
    expect(view.timeline.map((t) => t.text)).toEqual([
      'run started with 2 agents',
      'turn 1 started',
      'turn 1 started',
      'you → all agents: Use metric units',
      'you asked for the answer now',
    ]);
    expect(view.timeline[3]?.messageSeq).toBe(3);
    expect(view.messages).toEqual([
      { seq: 3, ts: 0, text: 'Use metric units', target: null, source: 'web', deliveredTo: ['b', 'a'] },
    ]);
    expect(view.streams['a']?.turns[0]?.received).toEqual([{ seq: 3, text: 'Use metric units' }]);
    expect(view.answerNow).toEqual({ seq: 8, source: 'web' });
    expect(view.fileChanges).toBe(1);
    // Half-way, before any delivery: the message is there, delivered to nobody yet.
    expect(replay(events.slice(0, 4)).messages[0]?.deliveredTo).toEqual([]);
  });

  it('a vote being written is not listed as a tool call with no arguments (the vote shows as itself)', () => {
    const bracket = (seq: number, type: 'tool.call.started' | 'tool.call.finished') =>
      ({
        ...base,
        seq,
        type,
        agentId: 'b',
        phase: 'coordination',
        callId: 'v',
        toolName: 'vote',
        ...(type === 'tool.call.started' ? { arguments: {} } : { result: '', isError: false, durationMs: 1 }),
      }) as unknown as RunEvent;
    const view = replay([
      ...events.slice(0, 3),
      bracket(9, 'tool.call.started'),
      bracket(10, 'tool.call.finished'),
    ]);
    expect(view.streams['b']?.turns[0]?.tools).toEqual([]);
    expect(view.fileChanges).toBe(0);
  });

  it("a Stop hook's block is shown as the user's hook sending the team back", () => {
    const view = replay([
      ...events.slice(0, 3),
      { ...base, seq: 9, type: 'human.message', text: 'run the tests', target: null, source: 'hook' },
    ] as unknown as RunEvent[]);
    expect(view.timeline.at(-1)?.text).toBe('your Stop hook → all agents: run the tests');
  });
});

describe('context compression in the run view', () => {
  it('puts each compression in the timeline: what was summarised, by which model, what it saved', () => {
    const event = {
      runId: 'r',
      seq: 1,
      ts: 1,
      type: 'agent.context.compressed',
      agentId: 'a',
      reason: 'provider_error',
      contextWindow: 128_000,
      summarisedMessages: 6,
      beforeTokens: 9_000,
      afterTokens: 3_000,
      savedTokens: 6_000,
      model: 'gpt-5-nano',
    } as RunEvent;
    const view = reduceRunView(initialRunView(), event);
    expect(view.timeline.at(-1)).toMatchObject({
      agentId: 'a',
      text: 'context compressed: 6 older messages summarised by gpt-5-nano, ~6000 tokens saved (the provider refused the request as too long)',
    });
  });
});
