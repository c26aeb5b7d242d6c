import { describe, expect, it } from 'vitest';
import { runMassGen } from '../../src/app/run-massgen.js';
import type { FakeRequestView } from '../../src/testing/fake-server/dialect.js';
import type { FakeResponse } from '../../src/testing/fake-server/script.js';
import { makeWorkdir, useFakeServer } from './cli-harness.js';

const fake = useFakeServer();

/** Runs three agents on one model; returns the most requests the server saw at once. */
async function peakConcurrency(rateLimits: Record<string, unknown>): Promise<number> {
  let inFlight = 0;
  let peak = 0;
  fake.server.setHandler(async (_body, _index, view: FakeRequestView): Promise<FakeResponse> => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    // Held for a while so overlapping calls would be seen; the stream is written after this returns.
    await new Promise((resolve) => setTimeout(resolve, 60));
    inFlight--;
    if (view.toolNames.length === 0) return { text: 'final' };
    if (!view.toolNames.includes('vote'))
      return { toolCalls: [{ name: 'new_answer', arguments: { content: `answer ${view.system}` } }] };
    return {
      toolCalls: [{ name: 'vote', arguments: { agent_id: view.votableIds[0] ?? 'agent1', reason: 'ok' } }],
    };
  });
  const agents = ['a', 'b', 'c'].map((id) => ({
    id,
    backend: { type: 'chatcompletion', model: 'shared-model', base_url: fake.server.url },
    system_message: `agent ${id}`,
  }));
  const result = await runMassGen({
    question: 'q',
    config: { agents, rate_limits: rateLimits },
    cwd: makeWorkdir(),
    env: {},
    logging: false,
  });
  expect(result.status).toBe('completed');
  return peak;
}

describe('rate_limits', () => {
  it('concurrent_requests caps the calls in flight for a model across all its agents', async () => {
    expect(await peakConcurrency({})).toBeGreaterThan(1);
    expect(await peakConcurrency({ 'shared-model': { concurrent_requests: 1 } })).toBe(1);
  });
});
