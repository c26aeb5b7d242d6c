/**
 * Python agents over the bridge (`type: external, framework: python`): a stdlib-only agent written for
 * the test, its model the fake server, in a team with two native agents. It reaches consensus; a crash
 * mid-turn, garbage on stdout and a hang are that agent's failures, never the run's.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './cli-harness.js';
import { useTeamWithAgent } from './external-agents.test-support.js';

const hasPython = spawnSync('python3', ['--version']).status === 0;
const noPython = hasPython ? '' : ' (skipped: python3 is not on PATH)';
const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'agents');

describe.skipIf(!hasPython)(`a Python agent over the bridge${noPython}`, () => {
  const { fake, run } = useTeamWithAgent();
  const pyAgent = (mode?: string) => ({
    type: 'external',
    framework: 'python',
    module: path.join(FIXTURES, 'py_agent.py'),
    ...(mode ? { provider_options: { mode } } : {}),
  });

  it('answers and votes with the native agents to consensus', async () => {
    const { result, events } = await run(pyAgent());
    expect(result.error).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(result.finalAnswer).toBe('It is 42.');
    expect(events.some((e) => e.type === 'agent.dropped')).toBe(false);
    const mine = fake.server.requests.filter((r) => r.body?.model === 'py-model');
    expect(mine.length).toBeGreaterThan(0);
    expect(JSON.stringify(mine[0]?.body?.messages)).toContain('You are the Python agent.');
    expect((mine[0]?.body?.tools ?? []).map((t) => t.function.name)).toContain('new_answer');
    const answered = events.some((e) => e.type === 'answer.submitted' && e.agentId === 'mine');
    const voted = events.some((e) => e.type === 'vote.cast' && e.agentId === 'mine');
    expect(answered || voted).toBe(true);
  });

  it.each(['crash', 'hang'])('a %s is the agent failing: dropped, and the others finish', async (mode) => {
    const { result, events } = await run(pyAgent(mode), {
      // Every agent's turns have this limit, not only the hanging one's: enough for a loaded machine.
      extra: { timeout_settings: { agent_turn_timeout_seconds: 5 } },
    });
    expect(result.status).toBe('completed');
    expect(result.finalAnswer).toBe('It is 42.');
    const failed = events.filter(
      (e) =>
        e.type === 'agent.turn.finished' &&
        e.agentId === 'mine' &&
        e.outcome !== 'answered' &&
        e.outcome !== 'voted',
    );
    expect(failed.length).toBeGreaterThan(0);
    expect(events.some((e) => e.type === 'agent.dropped' && e.agentId === 'mine')).toBe(true);
  });

  it('garbage an agent prints cannot reach the protocol: the agent still takes part', async () => {
    const { result, events } = await run(pyAgent('garbage'));
    expect(result.status).toBe('completed');
    expect(result.finalAnswer).toBe('It is 42.');
    expect(events.some((e) => e.type === 'agent.dropped')).toBe(false);
    expect(fake.server.requests.some((r) => r.body?.model === 'py-model')).toBe(true);
  });
});
