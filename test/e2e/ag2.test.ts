/**
 * AG2 agents in MassGen's config shape (`type: ag2`), run by massgen's AG2 driver over the Python bridge.
 * AG2 cannot be installed here, so `autogen` is the test double in test/fixtures/ag2-double (written from
 * AG2's API); its models are the fake server. Also: the `pip install` message when AG2 is missing, and an
 * AG2 code executor confined to the agent's sandbox.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxSupport } from '../../src/tools/execute-command/index.js';
import { convergingTeam, type FakeChatRequestBody, type FakeRequestView } from '../../src/testing/index.js';
import { REPO_ROOT } from './cli-harness.js';
import { useTeamWithAgent } from './external-agents.test-support.js';
import { realClockEnv } from '../support/real-clock-env.js';

const hasPython = spawnSync('python3', ['--version']).status === 0;
const noPython = hasPython ? '' : ' (skipped: python3 is not on PATH)';
const sandbox = sandboxSupport(process.env.PATH);
const noSandbox = sandbox.ok ? '' : ` (skipped: ${sandbox.reason})`;
const DOUBLE = path.join(REPO_ROOT, 'test', 'fixtures', 'ag2-double');
const EXPERTS = new Set(['coder-model', 'reviewer-model']);

describe.skipIf(!hasPython)(`AG2 agents (type: ag2)${noPython}`, () => {
  const team = useTeamWithAgent();
  const { fake } = team;
  const llm = (model: string) => ({
    api_type: 'openai',
    model,
    base_url: fake.server.url,
    api_key: 'test-key',
  });
  const converging = convergingTeam({ answer: '6 x 7 = 42', final: 'It is 42.' });
  const handler = (body: FakeChatRequestBody, index: number, view: FakeRequestView) =>
    EXPERTS.has(String(body.model))
      ? { text: `${String(body.model)}: 6 x 7 = 42` }
      : converging(body, index, view);

  const run = (
    backend: Record<string, unknown>,
    options: { question?: string; env?: Record<string, string | undefined> } = {},
  ) => team.run(backend, { handler, env: { ...process.env, PYTHONPATH: DOUBLE }, ...options });

  it('one AG2 agent (agent_config) takes part and the team reaches consensus', async () => {
    const { result, events } = await run({
      type: 'ag2',
      agent_config: {
        type: 'assistant',
        name: 'AG2_coder',
        system_message: 'You are the AG2 coder.',
        llm_config: llm('ag2-model'),
      },
    });
    expect(result.error).toBeUndefined();
    expect(result.finalAnswer).toBe('It is 42.');
    expect(events.some((e) => e.type === 'agent.dropped')).toBe(false);
    const mine = fake.server.requests.filter((r) => r.body?.model === 'ag2-model');
    expect(JSON.stringify(mine[0]?.body?.messages)).toContain('You are the AG2 coder.');
    expect((mine[0]?.body?.tools ?? []).map((t) => t.function.name)).toContain('new_answer');
    expect(
      events.some((e) => (e.type === 'answer.submitted' || e.type === 'vote.cast') && e.agentId === 'mine'),
    ).toBe(true);
  });

  it('an AG2 group chat (group_config): experts speak, the User agent answers for the group', async () => {
    const { result, events } = await run({
      type: 'ag2',
      group_config: {
        llm_config: llm('user-model'),
        agents: [
          {
            type: 'assistant',
            name: 'Coder',
            system_message: 'You write code.',
            llm_config: llm('coder-model'),
          },
          {
            type: 'assistant',
            name: 'Reviewer',
            system_message: 'You review.',
            llm_config: llm('reviewer-model'),
          },
        ],
        pattern: {
          type: 'auto',
          initial_agent: 'Coder',
          group_manager_args: { llm_config: llm('user-model') },
        },
        max_rounds: 6,
      },
    });
    expect(result.finalAnswer).toBe('It is 42.');
    expect(events.some((e) => e.type === 'agent.dropped')).toBe(false);
    const models = fake.server.requests.map((r) => r.body?.model);
    expect(models).toEqual(expect.arrayContaining(['coder-model', 'reviewer-model', 'user-model']));
    // The User agent saw what the experts said, and only it holds massgen's tools.
    const user = fake.server.requests.find((r) => r.body?.model === 'user-model');
    expect(JSON.stringify(user?.body?.messages)).toContain('reviewer-model: 6 x 7 = 42');
    const coder = fake.server.requests.find((r) => r.body?.model === 'coder-model');
    expect(coder?.body?.tools ?? []).toEqual([]);
  });

  it('without AG2 installed, the run does not start and names the pip install', async () => {
    const env = { ...process.env, PYTHONPATH: '' };
    await expect(
      run({ type: 'ag2', agent_config: { name: 'A', llm_config: llm('ag2-model') } }, { env }),
    ).rejects.toThrow(/agents\[0\]\.backend: ag2 is not installed .*pip install 'ag2\[openai\]'/);
  });

  it.skipIf(!sandbox.ok)(`AG2 code execution runs inside the agent's OS sandbox${noSandbox}`, async () => {
    const code = [
      'import os, sys',
      "open('made-here.txt', 'w').write('ok')",
      'try:',
      "    open(sys.argv[0].split('/.massgen/')[0] + '/escaped.txt', 'w').write('bad')",
      "    print('ESCAPED')",
      'except OSError as error:',
      "    print('BLOCKED', type(error).__name__)",
    ].join('\n');
    const { result, events, cwd } = await run(
      {
        type: 'ag2',
        cwd: 'coder',
        agent_config: {
          type: 'assistant',
          name: 'AG2_coder',
          llm_config: llm('ag2-model'),
          code_execution_config: {
            executor: { type: 'LocalCommandLineCodeExecutor', timeout: 30, work_dir: './code' },
          },
        },
      },
      {
        question: `Run this:\n\`\`\`python\n${code}\n\`\`\``,
        // What is tested is the confinement, not dates: under CI's faketime pass the preloaded clock
        // library breaks Python's subprocess inside bubblewrap (EINVAL), so this agent gets the real clock.
        env: realClockEnv({ ...process.env, PYTHONPATH: DOUBLE }),
      },
    );
    expect(result.status).toBe('completed');
    const said = events
      .filter((e) => e.type === 'agent.text.delta' && e.agentId === 'mine')
      .map((e) => (e as { text: string }).text)
      .join('');
    expect(said).toContain('BLOCKED');
    expect(said).not.toContain('ESCAPED');
    expect(existsSync(path.join(cwd, 'escaped.txt'))).toBe(false);
  });
});
