import { describe, expect, it } from 'vitest';
import { Orchestrator } from '../../src/coordination/orchestrator.js';
import { ScriptedBackend, step } from '../../src/testing/scripted-backend.js';
import type { RunEvent } from '../../src/types/events.js';
import { policy } from '../support/harness.js';

/**
 * A step's retries draw their jitter from the run's clock: a seeded clock replays the same waits. With
 * a random source of 0, full jitter waits 0 ms (equal jitter would wait at least half the ceiling:
 * 250 ms, then 500 ms), so these runs retry at once and the test needs no timers.
 */
async function run(scripts: Record<string, Parameters<typeof policy>[0] | ReturnType<typeof step.fail>[]>) {
  const agents = Object.entries(scripts).map(([id, script]) => ({
    id,
    backend: new ScriptedBackend(
      typeof script === 'string' ? policy(script, 'a') : [...script, ...policy(id.toUpperCase(), 'a')],
    ),
    maxRetries: 2,
  }));
  const orchestrator = new Orchestrator({
    agents,
    clock: { now: () => Date.now(), random: () => 0 },
    settings: { agentTurnTimeoutMs: 5_000, orchestratorTimeoutMs: 10_000 },
  });
  const events: RunEvent[] = [];
  for await (const event of orchestrator.run('What is the answer?')) events.push(event);
  return events;
}

describe('model-call retries', () => {
  it('wait full jitter drawn from the run clock', async () => {
    const events = await run({ a: [step.fail(500, 'boom'), step.fail(503, 'overloaded')], b: 'B' });
    const retries = events.flatMap((e) => (e.type === 'agent.step.retrying' ? [e] : []));
    expect(retries.map((r) => [r.agentId, r.attempt, r.delayMs, r.error.message])).toEqual([
      ['a', 1, 0, 'boom'],
      ['a', 2, 0, 'overloaded'],
    ]);
    const finished = events.at(-1);
    expect(finished?.type === 'run.finished' && finished.status).toBe('completed');
  });

  it('wait exactly the Retry-After the provider gives (under the cap), whatever the draw', async () => {
    const events = await run({ a: [step.fail(429, 'slow down', 3)], b: 'B' });
    const retries = events.flatMap((e) => (e.type === 'agent.step.retrying' ? [e] : []));
    expect(retries.map((r) => [r.attempt, r.delayMs])).toEqual([[1, 3]]);
  });
});
