import { describe, expect, it } from 'vitest';
import type { RunEvent } from './events.js';
import { initialRunState, reduceRunState, type RunState } from './run-state.js';

let seq = 0;
const ev = (event: Record<string, unknown>): RunEvent =>
  ({ runId: 'r', seq: ++seq, ts: seq, ...event }) as unknown as RunEvent;
const runStarted = (ids: string[]) =>
  ev({
    type: 'run.started',
    question: 'q',
    agents: ids.map((agentId, i) => ({
      agentId,
      anonymousId: `agent${i + 1}`,
      backendType: 'chatcompletion',
      model: 'm',
    })),
  });
const turn = (agentId: string) => ev({ type: 'agent.turn.started', agentId });
const turnsOf = (state: RunState) => Object.fromEntries(state.agents.map((a) => [a.agentId, a.turns]));

describe('reduceRunState: one agent changed per event (the agents looked up by id, not scanned)', () => {
  it('each event changes its own agent only, and leaves every earlier state as it was', () => {
    const ids = Array.from({ length: 50 }, (_, i) => `a${i}`);
    let state = reduceRunState(initialRunState(), runStarted(ids));
    const states = [state];
    for (const id of ['a7', 'a0', 'a49', 'a7']) states.push((state = reduceRunState(state, turn(id))));
    expect(turnsOf(state)).toMatchObject({ a7: 2, a0: 1, a49: 1, a1: 0 });
    expect(states.map((s) => s.agents.find((a) => a.agentId === 'a7')?.turns)).toEqual([0, 1, 1, 1, 2]);
    // An agent-wide change (votes.reset maps the list) keeps the lookups right.
    state = reduceRunState(state, ev({ type: 'votes.reset', clearedVoters: ['a0'] }));
    state = reduceRunState(state, turn('a49'));
    expect(turnsOf(state)).toMatchObject({ a7: 2, a0: 1, a49: 2 });
    expect(reduceRunState(state, turn('nobody'))).toBe(state);
  });

  it('a state whose agents array a caller reordered in place is still updated at the right agent', () => {
    let state = reduceRunState(initialRunState(), runStarted(['a', 'b', 'c']));
    state = reduceRunState(state, turn('a'));
    state.agents.reverse();
    state = reduceRunState(state, turn('c'));
    expect(turnsOf(state)).toEqual({ a: 1, b: 0, c: 1 });
  });
});
