import { describe, expect, it } from 'vitest';
import type { RunEvent } from './events.js';
import { cutOffReason, initialFinalFinish, reduceFinalFinish } from './final-finish.js';
import { initialRunState, reduceRunState } from './run-state.js';

let seq = 0;
const ev = (event: Record<string, unknown>): RunEvent =>
  ({ runId: 'r', seq: ++seq, ts: seq, ...event }) as unknown as RunEvent;
const step = (agentId: string, phase: string, finishReason: string) =>
  ev({
    type: 'agent.step.finished',
    agentId,
    phase,
    step: 1,
    finishReason,
    usage: { inputTokens: 1, outputTokens: 1, reasoningTokens: 0, cachedInputTokens: 0 },
    costUsd: 0,
  });
const started = (agentId: string, mode = 'present') => ev({ type: 'presentation.started', agentId, mode });
const finished = (agentId: string, fallback = false) =>
  ev({ type: 'presentation.finished', agentId, label: 'agent1.final', content: 'x', fallback });
const replay = (events: RunEvent[]) => events.reduce(reduceFinalFinish, initialFinalFinish());

describe('the final answer cut off at the output limit, derived from events alone', () => {
  it('the presenter’s last presentation step ended with length: cut off', () => {
    const finish = replay([
      step('a', 'coordination', 'stop'),
      started('a'),
      step('a', 'presentation', 'tool-calls'),
      step('a', 'presentation', 'length'),
      finished('a'),
    ]);
    expect(cutOffReason(finish)).toBe('length');
  });

  it('not cut off: a stop, a coordination step that hit the limit, another agent’s step, a fallback, a verbatim answer', () => {
    expect(
      cutOffReason(
        replay([
          step('a', 'coordination', 'length'),
          started('a'),
          step('a', 'presentation', 'stop'),
          finished('a'),
        ]),
      ),
    ).toBeNull();
    expect(
      cutOffReason(replay([started('a'), step('b', 'presentation', 'length'), finished('a')])),
    ).toBeNull();
    // The cut text was thrown away: the stored answer is final.
    expect(
      cutOffReason(replay([started('a'), step('a', 'presentation', 'length'), finished('a', true)])),
    ).toBeNull();
    expect(cutOffReason(replay([started('a', 'verbatim'), finished('a')]))).toBeNull();
  });

  it('a step after the answer was finished does not change it; a new presentation starts afresh', () => {
    const cut = replay([started('a'), step('a', 'presentation', 'length'), finished('a')]);
    expect(cutOffReason(reduceFinalFinish(cut, step('a', 'presentation', 'stop')))).toBe('length');
    const again = [started('a'), step('a', 'presentation', 'stop'), finished('a')].reduce(
      reduceFinalFinish,
      cut,
    );
    expect(cutOffReason(again)).toBeNull();
  });

  it('the shared run state carries it, so the terminal and web views agree', () => {
    const state = [started('a'), step('a', 'presentation', 'length'), finished('a')].reduce(
      reduceRunState,
      initialRunState(),
    );
    expect(cutOffReason(state.finalFinish)).toBe('length');
  });
});
