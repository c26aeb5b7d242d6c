/**
 * `ask_others` through the built CLI (docs/ask-others.md), agents mode: agent a asks its peer a
 * question mid-turn; b answers with one extra call of its own model (its persona, its work so far, no
 * tools), counted in b's cost and not a's; a second question is over `max_broadcasts_per_agent` and
 * refused. Every question and answer is an event.
 */
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import type { RunEvent } from '../../src/types/events.js';
import {
  agentEntry,
  agentOf,
  convergingHandler,
  makeWorkdir,
  onlyLogDir,
  persona,
  readEvents,
  runCli,
  toolNames,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';

const fake = useFakeServer();

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) =>
  events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

const lastUserText = (body: FakeChatRequestBody) => {
  const users = (body.messages ?? []).filter((m) => m.role === 'user');
  const last = users.at(-1)?.content;
  return typeof last === 'string' ? last : JSON.stringify(last ?? '');
};

/** a asks twice before answering; a peer's extra call (no tools, the question in it) answers it. */
function askingTeam(peerCalls: FakeChatRequestBody[]) {
  return (body: FakeChatRequestBody): FakeResponse => {
    const id = agentOf(body) ?? '?';
    if (lastUserText(body).includes('asks you the question below')) {
      peerCalls.push(body);
      return { text: `${id} says: use port 8080` };
    }
    if (id === 'a' && toolNames(body).includes('ask_others')) {
      const asked = (body.messages ?? []).filter((m) => m.role === 'tool').length;
      if (asked === 0) return { toolCalls: [{ name: 'ask_others', arguments: { question: 'Which port?' } }] };
      if (asked === 1)
        return { toolCalls: [{ name: 'ask_others', arguments: { question: 'And the host?' } }] };
    }
    return convergingHandler(body);
  };
}

describe('ask_others through the CLI', () => {
  it('a peer answers from its own model, in its own cost; the cap holds; each question and answer is an event', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: ['a', 'b'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
      pricing: Object.fromEntries(
        ['a', 'b'].map((id) => [`model-${id}`, { input_per_million: 2, output_per_million: 8 }]),
      ),
      orchestrator: {
        coordination: { broadcast: 'agents', max_broadcasts_per_agent: 1, broadcast_timeout: 60 },
      },
    });
    const peerCalls: FakeChatRequestBody[] = [];
    fake.server.setHandler(askingTeam(peerCalls));
    const run = await runCli(['--config', 'config.yaml', '--no-display', 'Set up the server'], {
      cwd,
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(0);

    const events = readEvents(onlyLogDir(cwd));
    const asked = ofType(events, 'ask_others.asked');
    expect(asked.map((e) => [e.agentId, e.mode, e.question, e.targets])).toEqual([
      ['a', 'agents', 'Which port?', ['b']],
    ]);
    const answered = ofType(events, 'ask_others.answered');
    expect(answered.map((e) => [e.agentId, e.questionId, e.from, e.outcome, e.answer])).toEqual([
      ['a', asked[0]!.questionId, 'b', 'answered', 'b says: use port 8080'],
    ]);
    // b's extra call: its own persona, no tools, the question; never a's conversation.
    expect(peerCalls).toHaveLength(1);
    expect(peerCalls[0]!.tools ?? []).toEqual([]);
    expect(lastUserText(peerCalls[0]!)).toContain('Question: Which port?');

    const results = ofType(events, 'tool.call.finished').filter((e) => e.toolName === 'ask_others');
    expect(results[0]).toMatchObject({ isError: false });
    expect(results[0]!.result).toMatch(/^agent2: b says: use port 8080$/);
    expect(results[1]).toMatchObject({ isError: true });
    expect(results[1]!.result).toContain('max_broadcasts_per_agent');

    // The peer's call is b's cost: b's total is more than its own steps, a's is exactly its steps.
    const finished = ofType(events, 'run.finished')[0]!;
    const stepCost = (id: string) =>
      ofType(events, 'agent.step.finished')
        .filter((e) => e.agentId === id)
        .reduce((sum, e) => sum + (e.costUsd ?? 0), 0);
    expect(finished.costUsd['b']!).toBeGreaterThan(stepCost('b') + 1e-12);
    expect(finished.costUsd['a']!).toBeCloseTo(stepCost('a'), 12);
  });
});
