/**
 * Adapters registered by name (`adapters:` in the config, `type: external, framework: NAME`): a user's
 * TypeScript adapter and a user's Python adapter each take part in a three-agent run; and what a wrong
 * framework, export or AG2 shape says.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './cli-harness.js';
import { useTeamWithAgent } from './external-agents.test-support.js';

const hasPython = spawnSync('python3', ['--version']).status === 0;
const noPython = hasPython ? '' : ' (skipped: python3 is not on PATH)';
const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'agents');

describe('agent adapters by name', () => {
  const { fake, run } = useTeamWithAgent();

  it('a TypeScript adapter (createAgent) takes part, and is closed at the end', async () => {
    const { result, events } = await run(
      { type: 'external', framework: 'echo', provider_options: { model: 'echo-model' } },
      { extra: { adapters: { echo: path.join(FIXTURES, 'echo-adapter.mjs') } } },
    );
    expect(result.finalAnswer).toBe('It is 42.');
    expect(events.some((e) => e.type === 'agent.dropped')).toBe(false);
    const mine = fake.server.requests.filter((r) => r.body?.model === 'echo-model');
    expect(JSON.stringify(mine[0]?.body?.messages)).toContain('You are mine, through a home-made adapter.');
    expect((globalThis as { echoAdapterClosed?: boolean }).echoAdapterClosed).toBe(true);
  });

  it.skipIf(!hasPython)(`a Python adapter (create(config, module)) takes part${noPython}`, async () => {
    const { result, events } = await run(
      { type: 'external', framework: 'loud' },
      { extra: { adapters: { loud: path.join(FIXTURES, 'py_adapter.py') } } },
    );
    expect(result.finalAnswer).toBe('It is 42.');
    expect(events.some((e) => e.type === 'agent.dropped')).toBe(false);
    expect(fake.server.requests.some((r) => r.body?.model === 'py-model')).toBe(true);
  });

  it('an unknown framework lists the known ones and the adapters', async () => {
    await expect(
      run({ type: 'external', framework: 'langgrph' }, { extra: { adapters: { echo: './echo.mjs' } } }),
    ).rejects.toThrow(
      /agents\[0\]\.backend\.framework: unknown framework "langgrph" — did you mean "langgraph"\?/,
    );
    await expect(run({ type: 'external', framework: 'nope' })).rejects.toMatchObject({
      hint: expect.stringMatching(
        /langgraph, openai_agents, ai_sdk_agent, python, ag2, smolagents, agentscope, crewai/,
      ),
    });
  });

  it('a module without the named export lists the exports it has', async () => {
    await expect(
      run({ type: 'langgraph', module: path.join(FIXTURES, 'planner.mjs'), export: 'planer' }),
    ).rejects.toThrow(
      /has no export named "planer" — did you mean "planner"\? \(its exports: compiled, planner\)/,
    );
  });

  it.skipIf(!hasPython)(
    `a Python module without the named attribute lists what it has${noPython}`,
    async () => {
      await expect(
        run({
          type: 'external',
          framework: 'python',
          module: path.join(FIXTURES, 'py_agent.py'),
          export: 'stepp',
        }),
      ).rejects.toThrow(/has no 'stepp' \(it has: Agent, create\)/);
    },
  );

  it('type: ag2 needs exactly one of agent_config and group_config', async () => {
    await expect(run({ type: 'ag2' })).rejects.toThrow(
      /needs exactly one of agent_config .* or group_config/,
    );
  });
});
