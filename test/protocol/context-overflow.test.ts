import { describe, expect, it } from 'vitest';
import { estimateTokens, PROMPT_SHARE } from '../../src/coordination/context-window.js';
import { Orchestrator } from '../../src/coordination/orchestrator.js';
import type { AgentSpec, CoordinationSettings, HistoryTurn } from '../../src/coordination/settings.js';
import { EventRecorder } from '../../src/testing/event-recorder.js';
import { ScriptedBackend, step, type ScriptStep } from '../../src/testing/scripted-backend.js';
import type { ToolRegistry } from '../../src/types/tool.js';
import { policy, requestText } from '../support/harness.js';

/** A tool whose every result is `size` characters long (page 99: 40,000). */
const bigTool = (size: number): ToolRegistry => ({
  list: () => [
    {
      name: 'fetch_page',
      description: 'Fetch a page.',
      parameters: { type: 'object', properties: { n: { type: 'number' } } },
    },
  ],
  execute: async (call) => {
    const length = (call.arguments as { n?: number }).n === 99 ? 40_000 : size;
    const page = `page ${JSON.stringify(call.arguments)}: ${'lorem ipsum '.repeat(Math.ceil(length / 12))}`;
    return { content: page.slice(0, length) };
  },
});

interface Member {
  id: string;
  steps: ScriptStep[];
  contextWindow?: number;
  tools?: ToolRegistry;
}

async function runTeam(
  members: Member[],
  options: { settings?: Partial<CoordinationSettings>; history?: HistoryTurn[] } = {},
) {
  const backends = Object.fromEntries(
    members.map((m) => [m.id, new ScriptedBackend(m.steps, { model: `model-${m.id}` })]),
  );
  const orchestrator = new Orchestrator({
    agents: members.map((m): AgentSpec => ({
      id: m.id,
      backend: backends[m.id] as ScriptedBackend,
      maxRetries: 0,
      ...(m.contextWindow === undefined ? {} : { contextWindow: m.contextWindow }),
      ...(m.tools ? { tools: m.tools } : {}),
    })),
    settings: { agentTurnTimeoutMs: 5_000, orchestratorTimeoutMs: 10_000, ...options.settings },
  });
  const recorder = await EventRecorder.record(
    orchestrator.run('Summarise the pages.', options.history ? { history: options.history } : {}),
  );
  return { recorder, backends, finished: recorder.finished };
}

/** Every request `backend` received fits the budget of `contextWindow` (messages and tool definitions). */
function expectAllWithin(backend: ScriptedBackend | undefined, contextWindow: number) {
  expect(backend?.requests.length ?? 0).toBeGreaterThan(0);
  for (const request of backend?.requests ?? [])
    expect(estimateTokens(request.messages, request.tools)).toBeLessThanOrEqual(contextWindow * PROMPT_SHARE);
}

const fetchPage = (n: number) => step.tool('fetch_page', { n });

describe('context window: a request is never sent knowing it would overflow', () => {
  it('a long turn is trimmed step by step — old tool results, then old steps, then the latest results — and every request sent fits', async () => {
    const window = 3_000; // 2,250 tokens for the prompt, about 9,000 characters
    const { recorder, backends, finished } = await runTeam([
      {
        id: 'reader',
        contextWindow: window,
        tools: bigTool(3_000),
        steps: [
          ...Array.from({ length: 6 }, (_, i) => fetchPage(i + 1)),
          // The last step reads one huge page: only clipping the latest result to its floor makes it fit.
          step.tool('fetch_page', { n: 99 }),
          step.answer('Summary: lorem ipsum.'),
          step.vote('agent1'),
          step.text('Final: lorem ipsum.'),
        ],
      },
      { id: 'peer', steps: policy('Peer summary.', 'agent1') },
    ]);
    expect(finished.status).toBe('completed');
    const reader = backends['reader'];
    expectAllWithin(reader, window);
    const trims = recorder.ofType('agent.context.trimmed').filter((e) => e.agentId === 'reader');
    expect(trims.length).toBeGreaterThan(0);
    for (const trim of trims) {
      expect(trim.contextWindow).toBe(window);
      expect(trim.afterTokens).toBeLessThanOrEqual(window * PROMPT_SHARE);
      expect(trim.afterTokens).toBeLessThan(trim.beforeTokens);
    }
    const sent = (reader?.requests ?? []).map(requestText).join('\n');
    expect(sent).toMatch(/\[tool result of fetch_page removed to fit the context window: 3000 characters\]/);
    expect(sent).toMatch(
      /earlier steps? of this turn \(your replies and their tool results\) removed to fit/,
    );
    expect(sent).toMatch(/characters of this tool result cut to fit the context window/);
    // The tool calls and their results stay paired: every tool message answers a call just before it.
    for (const request of reader?.requests ?? []) {
      const ids = new Set<string>();
      for (const m of request.messages) {
        if (m.role === 'assistant') for (const call of m.toolCalls ?? []) ids.add(call.id);
        if (m.role === 'tool') expect(ids.has(m.toolCallId)).toBe(true);
      }
      // The question and the system prompt are never cut.
      expect(request.messages[0]?.role).toBe('system');
      expect(requestText(request)).toContain('Summarise the pages.');
    }
    expect(recorder.ofType('agent.turn.finished').filter((t) => t.outcome === 'failed')).toEqual([]);
  });

  it('an agent whose opening request cannot fit is never called: dropped with the reason, and the others finish', async () => {
    const { recorder, backends, finished } = await runTeam([
      { id: 'tiny', contextWindow: 200, steps: [] },
      { id: 'a', steps: policy('A', 'agent2') },
      { id: 'b', steps: policy('B', 'agent2') },
    ]);
    expect(backends['tiny']?.requests).toEqual([]);
    const failed = recorder.ofType('agent.turn.finished').filter((t) => t.agentId === 'tiny');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.outcome).toBe('failed');
    expect(failed[0]?.error?.code).toBe('context_overflow');
    const message = failed[0]?.error?.message ?? '';
    expect(message).toMatch(
      /^tiny's request does not fit model-tiny's 200-token context window — about [\d,]+ tokens even after trimming, over the 150 a prompt may use; it was not sent \(use a model with a larger context window, or fewer agents or a smaller visibility_k\)$/,
    );
    expect(message).not.toContain('\n');
    expect(recorder.ofType('agent.dropped')).toEqual([
      expect.objectContaining({ agentId: 'tiny', reason: message }),
    ]);
    expect(recorder.ofType('agent.step.started').filter((s) => s.agentId === 'tiny')).toEqual([]);
    expect(recorder.ofType('agent.context.trimmed').filter((e) => e.agentId === 'tiny')).toEqual([]);
    expect(finished).toMatchObject({ status: 'completed', winnerId: 'a' });
  });

  it('a step that cannot fit mid-turn fails that turn only; the next turn starts afresh and fits', async () => {
    const window = 3_000;
    // One step calls the tool 40 times: even with every result at its floor, the next request overflows.
    const many = {
      toolCalls: Array.from({ length: 40 }, (_, i) => ({ name: 'fetch_page', arguments: { n: i } })),
    };
    const { recorder, backends, finished } = await runTeam([
      {
        id: 'greedy',
        contextWindow: window,
        tools: bigTool(2_000),
        steps: [many, step.answer('Greedy summary.'), step.vote('agent1'), step.text('Final: greedy.')],
      },
      { id: 'peer', steps: policy('Peer summary.', 'agent1') },
    ]);
    expectAllWithin(backends['greedy'], window);
    const turns = recorder.ofType('agent.turn.finished').filter((t) => t.agentId === 'greedy');
    expect(turns[0]).toMatchObject({ outcome: 'failed', error: { code: 'context_overflow' } });
    expect(turns.slice(1).some((t) => t.outcome === 'answered')).toBe(true);
    expect(recorder.ofType('agent.dropped')).toEqual([]);
    expect(finished.status).toBe('completed');
  });

  it('old turns of the conversation go before the question would be cut; the latest turn stays', async () => {
    const history = Array.from({ length: 6 }, (_, i) => ({
      question: `Earlier question ${i + 1}?`,
      answer: `Earlier answer ${i + 1}: ${'detail '.repeat(200)}`,
    }));
    const window = 2_500;
    const { backends, finished } = await runTeam(
      [
        { id: 'a', contextWindow: window, steps: policy('A', 'agent1') },
        { id: 'b', steps: policy('B', 'agent1') },
      ],
      { history },
    );
    expect(finished.status).toBe('completed');
    expectAllWithin(backends['a'], window);
    const first = requestText(backends['a']?.requests[0]);
    expect(first).toMatch(/\[\d earlier turns of the conversation removed to fit the context window\]/);
    expect(first).toContain('Earlier question 6?');
    expect(first).not.toContain('Earlier question 1?');
    expect(first).toContain('Summarise the pages.');
  });

  it('the final presentation is fitted too: the answers it shows are shortened, and it is sent', async () => {
    const window = 2_000;
    const long = `B: ${'the long answer '.repeat(500)}`;
    const { recorder, backends, finished } = await runTeam([
      { id: 'a', steps: policy('A', 'agent2') },
      { id: 'b', contextWindow: window, steps: policy(long, 'agent2') },
    ]);
    expect(finished).toMatchObject({ status: 'completed', winnerId: 'b' });
    expectAllWithin(backends['b'], window);
    const presentation = backends['b']?.requests.find((r) => !r.tools.some((t) => t.name === 'new_answer'));
    expect(requestText(presentation)).toMatch(
      /<b \(agent2\) — YOUR ANSWER>\nB: the long answer[\s\S]*characters of this answer cut to fit the context window/,
    );
    expect(recorder.ofType('presentation.finished')[0]).toMatchObject({ fallback: false });
  });

  it('a single agent whose request cannot fit fails the run with the reason, without calling the model', async () => {
    const { backends, finished } = await runTeam([{ id: 'solo', contextWindow: 10, steps: [] }]);
    expect(backends['solo']?.requests).toEqual([]);
    expect(finished.status).toBe('failed');
    expect(finished.error?.message).toMatch(
      /^solo failed: solo's request does not fit model-solo's 10-token context window/,
    );
  });
});
