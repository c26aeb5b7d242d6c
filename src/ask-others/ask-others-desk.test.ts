import { describe, expect, it } from 'vitest';
import { createAgentToolRegistry } from '../tools/agent-tool-registry.js';
import type { ToolEventInput } from '../types/tool.js';
import { AskOthersDesk, type AskOthersOptions } from './ask-others-desk.js';

async function deskFor(options: Partial<AskOthersOptions> & Pick<AskOthersOptions, 'mode'>) {
  const desk = new AskOthersDesk({
    timeoutMs: 30_000,
    maxPerAgent: 2,
    agentIds: ['a', 'b', 'c'],
    ...options,
  });
  desk.observe({
    runId: 'r',
    seq: 0,
    ts: 0,
    type: 'run.started',
    question: 'Build it',
    agents: ['a', 'b', 'c'].map((id, i) => ({
      agentId: id,
      anonymousId: `agent${i + 1}`,
      backendType: 't',
      model: 'm',
    })),
    settings: {},
  });
  const events: ToolEventInput[] = [];
  const registry = createAgentToolRegistry({
    providers: [desk.toolProvider('a')],
    excludeTools: [],
    timeoutMs: 1_000,
    maxResultChars: 100_000,
  });
  await registry.start!({ agentId: 'a', signal: new AbortController().signal, emit: (e) => events.push(e) });
  let n = 0;
  const ask = (args: Record<string, unknown>, signal = new AbortController().signal) =>
    registry.execute(
      { id: `c${++n}`, name: 'ask_others', arguments: args },
      { agentId: 'a', phase: 'coordination', signal },
    );
  return { desk, events, ask };
}

describe('ask_others', () => {
  it('asks the named peers by anonymous id, each with its own context, and counts their cost to them', async () => {
    const seen: string[] = [];
    const { ask, events } = await deskFor({
      mode: 'agents',
      respond: async (peer, question, context) => {
        seen.push(`${peer}|${question}|${context.includes('agent1 asks you')}`);
        return { text: `${peer}: 42`, costUsd: 0.01 };
      },
    });
    const result = await ask({ question: 'What is 6 x 7?', target_agents: ['agent3'] });
    expect(result).toMatchObject({ content: 'agent3: c: 42', peerCosts: { c: 0.01 } });
    expect(seen).toEqual(['c|What is 6 x 7?|true']);
    expect(events.map((e) => e.type)).toEqual(['ask_others.asked', 'ask_others.answered']);
    expect((await ask({ question: 'q', target_agents: ['agent1'] })).content).toContain(
      'cannot ask yourself',
    );
    expect((await ask({ question: 'q', target_agents: ['agent9'] })).content).toContain(
      'no agent "agent9" to ask (agents: agent2, agent3)',
    );
  });

  it('refuses questions beyond max_broadcasts_per_agent without asking anyone', async () => {
    let calls = 0;
    const { ask, events } = await deskFor({
      mode: 'agents',
      respond: async () => ({ text: `answer ${++calls}`, costUsd: 0 }),
    });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await ask({ question: `q${i}` }));
    expect(results.map((r) => r.isError === true)).toEqual([false, false, true, true]);
    expect(results[2]!.content).toContain('max_broadcasts_per_agent');
    expect(calls).toBe(4); // two questions, two peers each
    expect(events.filter((e) => e.type === 'ask_others.asked')).toHaveLength(2);
  });

  it('human mode: waits for the answer given by id, and says so when the time is up', async () => {
    const { desk, ask, events } = await deskFor({ mode: 'human', timeoutMs: 60_000 });
    const pending = ask({ question: 'Which database?' });
    await expect.poll(() => desk.pendingQuestions().length).toBe(1);
    const questionId = desk.pendingQuestions()[0]!.questionId;
    expect(desk.answer('nope', 'x')).toMatchObject({ accepted: false, reason: 'unknown_question' });
    expect(desk.answer(questionId, '   ')).toMatchObject({ accepted: false, reason: 'invalid_text' });
    expect(desk.answer(questionId, ' Postgres ', 'web')).toEqual({ accepted: true });
    expect((await pending).content).toBe('The human answered: Postgres');
    expect(desk.answer(questionId, 'again')).toMatchObject({ accepted: false, reason: 'unknown_question' });
    expect(events.at(-1)).toMatchObject({ type: 'ask_others.answered', from: 'human', source: 'web' });

    const quick = await deskFor({ mode: 'human', timeoutMs: 50 });
    expect((await quick.ask({ question: 'Anyone?' })).content).toContain('No answer came in time');
    expect(quick.events.at(-1)).toMatchObject({ outcome: 'timeout', from: null });
    expect(quick.desk.pendingQuestions()).toEqual([]);
  });
});
