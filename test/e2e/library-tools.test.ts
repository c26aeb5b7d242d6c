/**
 * Tools from code through the library API: `defineTool` tools per agent, and the approval hook
 * (`onToolApproval`, or `auto_approve: false` answered with `respondToApproval`).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { prepareRun, runMassGen, type RunEvent } from '../../src/index.js';
import { defineTool, type ToolExecutionContext } from '../../src/tools/index.js';
import type { FakeResponse } from '../../src/testing/fake-openai-server.js';
import type { FakeRequestView } from '../../src/testing/fake-server/dialect.js';
import {
  agentEntry,
  agentOf,
  makeWorkdir,
  persona,
  toolNames,
  useFakeServer,
  votableIds,
} from './cli-harness.js';

const fake = useFakeServer();

/** alpha looks a word up once, then answers with what it saw; beta votes for alpha. */
function lookupHandler(body: Parameters<typeof agentOf>[0], _i: number, view: FakeRequestView): FakeResponse {
  const id = agentOf(body);
  if (!toolNames(body).includes('new_answer')) return { text: `final by ${id}` };
  if (votableIds(body).includes('agent1')) {
    return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'fine' } }] };
  }
  if (id === 'alpha' && !/glossary:|not approved/.test(view.text)) {
    return { toolCalls: [{ name: 'lookup', arguments: { word: 'massgen' } }] };
  }
  const seen = /glossary: [^\n"]*|not approved[^\n"]*/.exec(view.text)?.[0] ?? 'nothing';
  return { toolCalls: [{ name: 'new_answer', arguments: { content: `${id} saw ${seen}` } }] };
}

function makeLookup() {
  const contexts: Omit<ToolExecutionContext, 'signal'>[] = [];
  const tool = defineTool({
    name: 'lookup',
    description: 'Look a word up in the glossary.',
    parameters: z.object({ word: z.string() }),
    readOnly: true,
    execute: ({ word }, { agentId, phase }) => {
      contexts.push({ agentId, phase });
      return `glossary: ${word} means many agents`;
    },
  });
  return { tool, contexts };
}

const config = (orchestrator: Record<string, unknown> = {}) => ({
  agents: ['alpha', 'beta'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
  orchestrator,
});

const answerOf = (events: RunEvent[], agentId: string) =>
  events.find(
    (e): e is Extract<RunEvent, { type: 'answer.submitted' }> =>
      e.type === 'answer.submitted' && e.agentId === agentId,
  )?.content;

describe('tools from code', () => {
  it('gives a defineTool tool to one agent; it runs with that agent as context', async () => {
    fake.server.setHandler(lookupHandler);
    const { tool, contexts } = makeLookup();
    const events: RunEvent[] = [];
    const result = await runMassGen({
      config: config(),
      question: 'What does massgen mean?',
      cwd: makeWorkdir(),
      env: {},
      logging: false,
      tools: { alpha: [tool] },
      onEvent: (e) => events.push(e),
    });
    expect(result.status).toBe('completed');
    expect(answerOf(events, 'alpha')).toBe('alpha saw glossary: massgen means many agents');
    expect(contexts).toEqual([{ agentId: 'alpha', phase: 'coordination' }]);
    const betaRequest = fake.server.requests.find((r) => r.body && agentOf(r.body) === 'beta');
    expect(toolNames(betaRequest?.body ?? {})).not.toContain('lookup');
  });

  it('rejects tools for an agent that is not in the config, suggesting the right id', async () => {
    const { tool } = makeLookup();
    await expect(
      prepareRun({
        config: config(),
        question: 'q',
        cwd: makeWorkdir(),
        env: {},
        logging: false,
        tools: { alpah: [tool] },
      }),
    ).rejects.toThrow(/tools were given for agent "alpah".*did you mean "alpha"/);
  });
});

describe('tool approval from code', () => {
  it('onToolApproval decides each call; a denial reaches the model as a tool error', async () => {
    fake.server.setHandler(lookupHandler);
    const { tool, contexts } = makeLookup();
    const asked: string[] = [];
    const events: RunEvent[] = [];
    const result = await runMassGen({
      config: config(),
      question: 'q',
      cwd: makeWorkdir(),
      env: {},
      logging: false,
      tools: { alpha: [tool] },
      onToolApproval: async (request) => {
        asked.push(`${request.agentId}:${request.toolName}:${JSON.stringify(request.arguments)}`);
        return { approved: false, reason: 'glossary is private' };
      },
      onEvent: (e) => events.push(e),
    });
    expect(result.status).toBe('completed');
    expect(asked).toEqual(['alpha:lookup:{"word":"massgen"}']);
    expect(contexts).toEqual([]);
    expect(answerOf(events, 'alpha')).toBe(
      'alpha saw not approved: glossary is private. Do not retry it unchanged; continue without it or try another approach.',
    );
  });

  it('with auto_approve: false, calls wait for respondToApproval', async () => {
    fake.server.setHandler(lookupHandler);
    const { tool, contexts } = makeLookup();
    const prepared = await prepareRun({
      config: config({ auto_approve: false }),
      question: 'q',
      cwd: makeWorkdir(),
      env: {},
      logging: false,
      tools: { alpha: [tool] },
    });
    const events: RunEvent[] = [];
    for await (const event of prepared.stream()) {
      events.push(event);
      if (event.type === 'tool.approval.requested') {
        expect(prepared.respondToApproval('beta', event.callId, { approved: true })).toBe(false);
        // Answered later, as a UI would.
        setTimeout(() => prepared.respondToApproval(event.agentId, event.callId, { approved: true }), 50);
      }
    }
    expect((await prepared.result).status).toBe('completed');
    expect(contexts).toEqual([{ agentId: 'alpha', phase: 'coordination' }]);
    const types = events.map((e) => e.type);
    expect(types.indexOf('tool.approval.requested')).toBeLessThan(types.indexOf('tool.approval.resolved'));
    expect(answerOf(events, 'alpha')).toBe('alpha saw glossary: massgen means many agents');
  });
});
