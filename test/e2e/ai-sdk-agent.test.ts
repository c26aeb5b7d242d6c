/**
 * An AI SDK agent (`ToolLoopAgent` from the real `ai` package) as a team member beside native agents:
 * its model is pointed at the fake OpenAI-compatible server, its own tool runs inside its loop, and it
 * reaches consensus through massgen's workflow tools.
 */
import { describe, expect, it } from 'vitest';
import { runMassGen } from '../../src/app/run-massgen.js';
import { makeWorkdir } from './cli-harness.js';
import { useExternalAgentTeam } from './external-agents.test-support.js';

const {
  fake,
  module: MODULE,
  run,
} = useExternalAgentTeam({
  file: 'researcher.mjs',
  ownTool: 'lookup',
  args: { topic: 'multiplication' },
  marker: 'fact about',
});

describe('an AI SDK agent as a team member', () => {
  it('runs its own loop and tool, then answers and votes with the native agents to consensus', async () => {
    const { result, events } = await run('researcher', 'ai_sdk_agent', 'researcher');

    expect(result.error).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(result.finalAnswer).toBe('It is 42.');
    const started = events.find((e) => e.type === 'run.started');
    expect(started?.type === 'run.started' && started.agents[0]).toMatchObject({
      agentId: 'researcher',
      backendType: 'ai_sdk_agent',
      model: 'ai_sdk_agent:researcher',
    });
    // Its own tool ran inside its loop and shows as its own (provider-executed) call.
    const lookup = events.find((e) => e.type === 'tool.call.finished' && e.toolName === 'lookup');
    expect(lookup).toMatchObject({ agentId: 'researcher', providerExecuted: true });
    const researcherRequests = fake.server.requests.filter((r) => r.body?.model === 'researcher-model');
    expect(researcherRequests.length).toBeGreaterThan(1);
    const first = researcherRequests[0]?.body;
    expect(JSON.stringify(first?.messages)).toContain('You are the researcher');
    expect((first?.tools ?? []).map((t) => t.function.name).sort()).toEqual(['lookup', 'new_answer']);
    expect(
      events.some((e) => e.type === 'answer.submitted' && e.agentId === 'researcher') ||
        events.some((e) => e.type === 'vote.cast' && e.agentId === 'researcher'),
    ).toBe(true);
  });

  it('a module without the named export, or an export that is not an agent, is a config error naming it', async () => {
    const start = (exportName: string) =>
      runMassGen({
        config: {
          agents: [{ id: 'r', backend: { type: 'ai_sdk_agent', module: MODULE, export: exportName } }],
        },
        question: 'x',
        cwd: makeWorkdir(),
        env: {},
        logging: false,
      });
    await expect(start('reseacher')).rejects.toThrow(
      /has no export named "reseacher" — did you mean "researcher"\? \(its exports: notAnAgent, researcher\)/,
    );
    await expect(start('notAnAgent')).rejects.toThrow(
      /agents\[0\] \(r\): the export "notAnAgent" of .*researcher\.mjs is not an AI SDK agent/,
    );
    await expect(
      runMassGen({
        config: { agents: [{ id: 'r', backend: { type: 'ai_sdk_agent' } }] },
        question: 'x',
        cwd: makeWorkdir(),
        env: {},
        logging: false,
      }),
    ).rejects.toThrow(/the ai_sdk_agent backend needs module:/);
    expect(fake.server.requests).toHaveLength(0);
  });
});
