import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../types/events.js';
import { createPlainDisplay } from '../app/plain-display.js';
import { createHeartbeat } from './heartbeat.js';

let seq = 0;
const ev = (event: Record<string, unknown>): RunEvent =>
  ({ runId: 'r', seq: ++seq, ts: seq, ...event }) as unknown as RunEvent;

/** A plain view with a heartbeat on a hand-moved clock: `advance` moves it and runs the timer. */
function setUp(quietMs = 10_000) {
  let now = 0;
  let tick: (() => void) | null = null;
  let out = '';
  const write = (text: string) => (out += text);
  const heartbeat = createHeartbeat({
    write,
    quietMs,
    now: () => now,
    every: (_ms, t) => {
      tick = t;
      return () => (tick = null);
    },
  });
  const plain = createPlainDisplay(write, { onAgentLine: heartbeat.activity });
  return {
    handle: (event: RunEvent) => {
      plain(event);
      heartbeat.handle(event);
    },
    advance(ms: number) {
      now += ms;
      tick?.();
    },
    get out() {
      return out;
    },
    get timerRunning() {
      return tick !== null;
    },
    heartbeat,
  };
}

const heartbeats = (out: string) => out.split('\n').filter((l) => l.includes('thinking…'));

describe('the plain view’s heartbeat', () => {
  it('an agent quiet for the interval gets one line per interval, with its turn and the seconds since it began', () => {
    const v = setUp();
    v.handle(ev({ type: 'agent.turn.started', agentId: 'a', turn: 2, visibleAnswers: [] }));
    v.advance(9_000);
    expect(heartbeats(v.out)).toEqual([]);
    v.advance(6_000);
    expect(heartbeats(v.out)).toEqual(['[a] thinking… (turn 2, 15 s)']);
    v.advance(5_000);
    expect(heartbeats(v.out)).toHaveLength(1);
    v.advance(5_000);
    expect(heartbeats(v.out)).toEqual(['[a] thinking… (turn 2, 15 s)', '[a] thinking… (turn 2, 25 s)']);
  });

  it('stays quiet while the agent prints lines; a partial line (nothing printed yet) does not count', () => {
    const v = setUp();
    v.handle(ev({ type: 'agent.turn.started', agentId: 'a', turn: 1, visibleAnswers: [] }));
    v.advance(8_000);
    v.handle(
      ev({ type: 'agent.text.delta', agentId: 'a', phase: 'coordination', kind: 'text', text: 'one\n' }),
    );
    v.advance(8_000);
    expect(heartbeats(v.out)).toEqual([]);
    v.handle(
      ev({ type: 'agent.text.delta', agentId: 'a', phase: 'coordination', kind: 'text', text: 'half a li' }),
    );
    v.advance(3_000);
    expect(heartbeats(v.out)).toEqual(['[a] thinking… (turn 1, 19 s)']);
  });

  it('another agent’s lines do not silence a quiet one', () => {
    const v = setUp();
    v.handle(ev({ type: 'agent.turn.started', agentId: 'a', turn: 1, visibleAnswers: [] }));
    v.handle(ev({ type: 'agent.turn.started', agentId: 'b', turn: 1, visibleAnswers: [] }));
    v.advance(6_000);
    v.handle(
      ev({ type: 'agent.text.delta', agentId: 'b', phase: 'coordination', kind: 'text', text: 'b talks\n' }),
    );
    v.advance(5_000);
    expect(heartbeats(v.out)).toEqual(['[a] thinking… (turn 1, 11 s)']);
  });

  it('stops when the turn ends, and for the presenter once the final answer streams (never inside it)', () => {
    const v = setUp();
    v.handle(ev({ type: 'agent.turn.started', agentId: 'a', turn: 1, visibleAnswers: [] }));
    v.handle(
      ev({
        type: 'agent.turn.finished',
        agentId: 'a',
        turn: 1,
        outcome: 'answered',
        durationMs: 1,
        consecutiveFailures: 0,
      }),
    );
    expect(v.timerRunning).toBe(false);
    v.advance(30_000);
    expect(heartbeats(v.out)).toEqual([]);

    v.handle(ev({ type: 'presentation.started', agentId: 'a', mode: 'present' }));
    v.advance(11_000);
    expect(heartbeats(v.out)).toEqual(['[a] thinking… (final answer, 11 s)']);
    v.handle(
      ev({ type: 'agent.text.delta', agentId: 'a', phase: 'presentation', kind: 'text', text: 'The ans' }),
    );
    v.advance(60_000);
    expect(heartbeats(v.out)).toHaveLength(1);
    expect(v.out.endsWith('The ans')).toBe(true);
    expect(v.timerRunning).toBe(false);
  });

  it('close() stops the timer', () => {
    const v = setUp();
    v.handle(ev({ type: 'agent.turn.started', agentId: 'a', turn: 1, visibleAnswers: [] }));
    expect(v.timerRunning).toBe(true);
    v.heartbeat.close();
    expect(v.timerRunning).toBe(false);
  });
});
