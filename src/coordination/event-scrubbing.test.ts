import { describe, expect, it } from 'vitest';
import type { RunEventInput } from '../types/events.js';
import { emptyUsage } from '../types/usage.js';
import { createSecretScrubber } from '../util/secret-scrubber.js';
import { EventScrubber } from './event-scrubbing.js';

const KEY = 'sk-live-0123456789abcdef';
const text = (agentId: string, kind: 'text' | 'reasoning' = 'text') => ({
  start: { type: 'agent.text.start', agentId, phase: 'coordination', kind } as const,
  delta: (t: string) =>
    ({ type: 'agent.text.delta', agentId, phase: 'coordination', kind, text: t }) as const,
  end: { type: 'agent.text.end', agentId, phase: 'coordination', kind } as const,
});

/** Feeds inputs through one EventScrubber; returns every event it lets out. */
function run(inputs: readonly RunEventInput[]): RunEventInput[] {
  const scrubber = new EventScrubber(createSecretScrubber([KEY]));
  return inputs.flatMap((input) => scrubber.scrub(input));
}

describe('EventScrubber', () => {
  it('holds a split key back, drops deltas with nothing safe to show, and releases the rest before the end', () => {
    const a = text('a');
    const out = run([
      a.start,
      a.delta('key '),
      a.delta(KEY.slice(0, 8)),
      a.delta(KEY.slice(8, 16)),
      a.delta('ok'),
    ]);
    // `sk-live-` and `01234567` could be the start of the key: held back, no empty deltas. `ok` shows
    // they were not (the start of a key followed by something else is no key): released together.
    expect(out).toEqual([a.start, a.delta('key '), a.delta(`${KEY.slice(0, 16)}ok`)]);
    const whole = run([
      a.start,
      a.delta('key '),
      a.delta(KEY.slice(0, 12)),
      a.delta(KEY.slice(12)),
      a.delta('!'),
      a.end,
    ]);
    expect(whole).toEqual([a.start, a.delta('key '), a.delta('***'), a.delta('!'), a.end]);
    const tail = run([a.start, a.delta(`x ${KEY.slice(0, 3)}`), a.end]);
    expect(tail).toEqual([a.start, a.delta('x '), a.delta(KEY.slice(0, 3)), a.end]);
  });

  it('keeps one stream per agent and kind, so interleaved streams do not mix', () => {
    const a = text('a');
    const b = text('b', 'reasoning');
    const out = run([
      a.start,
      b.start,
      a.delta(KEY.slice(0, 10)),
      b.delta(KEY.slice(0, 10)),
      a.delta(KEY.slice(10)),
      a.end,
      b.end,
    ]);
    expect(out).toEqual([a.start, b.start, a.delta('***'), a.end, b.delta('***'), b.end]);
  });

  it('closes a stream left open when its step or turn ends, and every stream at the end of the run', () => {
    const a = text('a');
    const b = text('b');
    const stepDone: RunEventInput = {
      type: 'agent.step.finished',
      agentId: 'a',
      phase: 'coordination',
      step: 1,
      finishReason: 'stop',
      usage: emptyUsage(),
      costUsd: 0,
    };
    const out = run([a.start, a.delta(`x ${KEY.slice(0, 9)}`), b.start, b.delta('y sk-'), stepDone]);
    expect(out).toEqual([a.start, a.delta('x '), b.start, b.delta('y '), a.delta('***'), a.end, stepDone]);
  });

  it('scrubs every other event whole', () => {
    const answer: RunEventInput = {
      type: 'answer.submitted',
      agentId: 'a',
      anonymousId: 'agent1',
      label: 'agent1.1',
      content: `use ${KEY}`,
    };
    expect(run([answer])).toEqual([{ ...answer, content: 'use ***' }]);
  });
});
