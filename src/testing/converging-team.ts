import type { FakeRequestView } from './fake-server/dialect.js';
import type { FakeResponse } from './fake-server/script.js';

/** Options of {@link convergingTeam}. */
export interface ConvergingTeamOptions {
  /** What each agent submits (default: `"42"`); a function gets the agent's system message. */
  answer?: string | ((system: string) => string);
  /** What the winner presents (default: `"The answer is 42."`). */
  final?: string;
}

/**
 * A handler for any of the fake servers (every wire dialect) that makes a whole team converge: an agent
 * with nothing to vote for submits an answer, an agent shown answers votes for the first one, and the
 * final presentation (no workflow tools) returns `final`. Enough to test a config's plumbing — backends,
 * keys, tools, logs, views — without a real model.
 *
 * @example
 * ```ts
 * const fake = await startFakeOpenAIServer();
 * fake.setHandler(convergingTeam({ final: 'Canberra.' }));
 * ```
 */
export function convergingTeam(options: ConvergingTeamOptions = {}) {
  const final = options.final ?? 'The answer is 42.';
  return (_body: unknown, _index: number, view: FakeRequestView): FakeResponse => {
    const [first] = view.votableIds;
    if (first !== undefined)
      return {
        toolCalls: [{ name: 'vote', arguments: { agent_id: first, reason: 'it answers the question' } }],
      };
    if (view.toolNames.includes('new_answer')) {
      const answer =
        typeof options.answer === 'function' ? options.answer(view.system) : (options.answer ?? '42');
      return { toolCalls: [{ name: 'new_answer', arguments: { content: answer } }] };
    }
    return { text: final };
  };
}
