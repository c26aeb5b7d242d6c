import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../types/events.js';
import type { AgentState } from '../types/run-state.js';
import { panelBody } from './lines.js';
import { initialViewState } from './view-types.js';
import { reduceViewAll } from './view-state.js';

const base = { runId: 'r', ts: 1_000 };
let seq = 0;
const ev = (event: Record<string, unknown>) => ({ ...base, seq: seq++, ...event }) as RunEvent;

describe('subagents in the live view', () => {
  it('shows one line per subagent in its parent agent panel, with state and cost kept current', () => {
    const events = [
      ev({
        type: 'subagent.started',
        agentId: 'alpha',
        subagentId: 'sa1-00000001',
        task: 'compute A',
        subagentType: null,
        timeoutSeconds: 300,
        background: true,
        logDir: null,
      }),
      ev({
        type: 'subagent.started',
        agentId: 'alpha',
        subagentId: 'sa2-00000002',
        task: 'compute B',
        subagentType: 'critic',
        timeoutSeconds: 300,
        background: true,
        logDir: null,
      }),
      ev({
        type: 'subagent.event',
        agentId: 'alpha',
        subagentId: 'sa1-00000001',
        event: { type: 'agent.step.finished', costUsd: 0.0125 },
      }),
      ev({
        type: 'subagent.finished',
        agentId: 'alpha',
        subagentId: 'sa2-00000002',
        state: 'completed',
        answer: 'B = 21',
        costUsd: 0.5,
        durationMs: 10,
      }),
    ];
    const state = reduceViewAll(initialViewState(), events);
    const agent = { agentId: 'alpha', status: 'working' } as unknown as AgentState;
    const body = panelBody(agent, state.agents.alpha!, null, 80, 6).map((l) => l.text);
    expect(body).toEqual([
      '↳ … sa1-00000001 running $0.0125 — compute A',
      '↳ ✔ sa2-00000002 completed $0.5000 — compute B',
    ]);
    expect(state.timeline.filter((t) => t.kind === 'subagent').map((t) => t.text)).toEqual([
      'subagent sa1-00000001 started (300s): compute A',
      'subagent sa2-00000002 started (300s): compute B',
      'subagent sa2-00000002 completed, $0.5000: B = 21',
    ]);
    // A small panel keeps a line for the agent's own output.
    expect(panelBody(agent, state.agents.alpha!, null, 80, 2)).toHaveLength(1);
  });
});
