import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/types/events.js';
import { replay } from './run-view.js';

let seq = 0;
const ev = (event: Record<string, unknown>) => ({ runId: 'r', ts: 1, seq: seq++, ...event }) as RunEvent;
const inner = (n: number, event: Record<string, unknown>) => ({ runId: 'child', ts: 1, seq: n, ...event });

describe('subagents in the web run view', () => {
  it("nests each subagent's run under its parent agent, folded from the forwarded events", () => {
    const view = replay([
      ev({
        type: 'subagent.started',
        agentId: 'alpha',
        subagentId: 'sa1-0000000a',
        task: 'part A',
        subagentType: null,
        timeoutSeconds: 60,
        background: true,
        logDir: null,
      }),
      ev({
        type: 'subagent.event',
        agentId: 'alpha',
        subagentId: 'sa1-0000000a',
        event: inner(0, { type: 'agent.turn.started', agentId: 'alpha', turn: 1, visibleAnswers: [] }),
      }),
      ev({
        type: 'subagent.event',
        agentId: 'alpha',
        subagentId: 'sa1-0000000a',
        event: inner(1, {
          type: 'agent.text.delta',
          agentId: 'alpha',
          phase: 'coordination',
          kind: 'text',
          text: 'working on A',
        }),
      }),
    ]);
    const [sub] = view.subagents.alpha!;
    expect(sub).toMatchObject({ id: 'sa1-0000000a', task: 'part A', state: 'running' });
    expect(sub!.view.streams.alpha!.turns.at(-1)!.text).toBe('working on A');
    expect(view.streams.alpha).toBeUndefined(); // the subagent's text is not the parent's

    const done = replay([
      ev({
        type: 'subagent.started',
        agentId: 'beta',
        subagentId: 'sa2-0000000b',
        task: 'part B',
        subagentType: 'critic',
        timeoutSeconds: 60,
        background: false,
        logDir: null,
      }),
      ev({
        type: 'subagent.finished',
        agentId: 'beta',
        subagentId: 'sa2-0000000b',
        state: 'completed',
        answer: 'B is 21',
        costUsd: 0.02,
        durationMs: 5,
      }),
    ]);
    expect(done.subagents.beta).toMatchObject([{ state: 'completed', answer: 'B is 21', costUsd: 0.02 }]);
  });
});
