import { describe, expect, it } from 'vitest';
import { runMassGen } from '../../src/app/run-massgen.js';
import type { FakeRequestView } from '../../src/testing/fake-server/dialect.js';
import type { FakeResponse } from '../../src/testing/fake-server/script.js';
import { RateLimiter, type CallLimiterFactory } from '../../src/util/rate-limiter.js';
import { waitUntil } from '../support/wait.js';
import { makeWorkdir, useFakeServer } from './cli-harness.js';

const fake = useFakeServer();

/** What the fake model and the model's limiter have seen so far. */
interface Seen {
  inFlight: number;
  peak: number;
  /** Slots asked of the limiter (the real one, counted), and slots held now. */
  asked: number;
  held: number;
}

/**
 * Runs three agents on one model and returns the most requests the server saw at once. The first
 * request is held until `release` holds, so an overlap, or its absence, is a fact and not a matter
 * of how fast this machine is.
 */
async function peakConcurrency(
  rateLimits: Record<string, unknown>,
  release: { what: string; when: (seen: Seen) => boolean },
): Promise<number> {
  const seen: Seen = { inFlight: 0, peak: 0, asked: 0, held: 0 };
  let first = true;
  fake.server.setHandler(async (_body, _index, view: FakeRequestView): Promise<FakeResponse> => {
    seen.inFlight++;
    seen.peak = Math.max(seen.peak, seen.inFlight);
    if (first) {
      first = false;
      await waitUntil(() => release.when(seen), release.what, { seen: () => JSON.stringify(seen) });
    }
    // The stream is written after this returns.
    seen.inFlight--;
    if (view.toolNames.length === 0) return { text: 'final' };
    if (!view.toolNames.includes('vote'))
      return { toolCalls: [{ name: 'new_answer', arguments: { content: `answer ${view.system}` } }] };
    return {
      toolCalls: [{ name: 'vote', arguments: { agent_id: view.votableIds[0] ?? 'agent1', reason: 'ok' } }],
    };
  });
  const counted: CallLimiterFactory = (_model, limits) => {
    const limiter = new RateLimiter(limits);
    return {
      acquire: async (signal) => {
        seen.asked++;
        const giveBack = await limiter.acquire(signal);
        seen.held++;
        return () => {
          seen.held--;
          giveBack();
        };
      },
    };
  };
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
    limiters: counted,
  });
  expect(result.status).toBe('completed');
  return seen.peak;
}

describe('rate_limits', () => {
  it('concurrent_requests caps the calls in flight for a model across all its agents', async () => {
    // Without a cap the others' first calls arrive while the first is held.
    const uncapped = { what: 'a second call in flight', when: (s: Seen) => s.peak >= 2 };
    expect(await peakConcurrency({}, uncapped)).toBeGreaterThan(1);
    // With one, the held call keeps the slot while both other agents ask for theirs, and wait; a slot
    // granted beside it would be a call on its way, so that call is awaited too.
    const capped = {
      what: 'every agent to ask for a slot (and any call granted one to arrive)',
      when: (s: Seen) => s.asked >= 3 && (s.held <= 1 || s.peak >= 2),
    };
    expect(await peakConcurrency({ 'shared-model': { concurrent_requests: 1 } }, capped)).toBe(1);
  });
});
