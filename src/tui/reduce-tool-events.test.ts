import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../types/events.js';
import { AGENTS, eventBuilder, threeAgentRun, toolRun } from './fixtures.test-support.js';
import {
  answerApproval,
  currentApproval,
  initialUiState,
  initialViewState,
  reduceUi,
  reduceViewAll,
  type ViewState,
} from './view-state.js';

/** The live view's reducer for tool calls, MCP servers, planning mode and approvals. */

const replay = (events: readonly RunEvent[]): ViewState => reduceViewAll(initialViewState(), events);

const agentView = (state: ViewState, id: string) => {
  const view = state.agents[id];
  if (!view) throw new Error(`no view for ${id}`);
  return view;
};

describe('reduceView: tool activity', () => {
  it('shows a vendor computer action by its target, not as JSON', () => {
    const b = eventBuilder();
    b.emit({ type: 'run.started', question: 'Q', agents: AGENTS.slice(0, 1), settings: {} });
    b.emit({ type: 'agent.turn.started', agentId: 'gpt', turn: 1, visibleAnswers: [] });
    const started = (callId: string, args: Record<string, unknown>) =>
      b.emit({
        type: 'tool.call.started',
        agentId: 'gpt',
        phase: 'coordination',
        callId,
        toolName: 'computer',
        arguments: args,
      });
    started('c1', { action: 'left_click', coordinate: [120, 48] });
    expect(agentView(replay(b.events), 'gpt').tool).toMatchObject({ args: 'left_click (120, 48)' });
    started('c2', { action: 'type', text: 'hello' });
    expect(agentView(replay(b.events), 'gpt').tool).toMatchObject({ args: 'type "hello"' });
    started('c3', { action: 'left_click_drag', start_coordinate: [1, 2], coordinate: [3, 4] });
    expect(agentView(replay(b.events), 'gpt').tool).toMatchObject({
      args: 'left_click_drag (1, 2) → (3, 4)',
    });
    started('c4', { action: 'key', text: 'ctrl+s' });
    expect(agentView(replay(b.events), 'gpt').tool).toMatchObject({ args: 'key ctrl+s' });
  });

  it('shows the latest tool call, marks provider-executed tools, and records results in the transcript', () => {
    const b = eventBuilder();
    b.emit({ type: 'run.started', question: 'Q', agents: AGENTS.slice(0, 1), settings: {} });
    b.emit({ type: 'agent.turn.started', agentId: 'gpt', turn: 1, visibleAnswers: [] });
    b.emit({
      type: 'tool.call.started',
      agentId: 'gpt',
      phase: 'coordination',
      callId: 'w1',
      toolName: 'web_search',
      arguments: { query: 'capital of France' },
      providerExecuted: true,
    });
    let state = replay(b.events);
    expect(agentView(state, 'gpt').tool).toEqual({
      callId: 'w1',
      toolName: 'web_search',
      args: '{"query":"capital of France"}',
      providerExecuted: true,
      state: 'running',
      durationMs: null,
    });
    b.emit({
      type: 'tool.call.finished',
      agentId: 'gpt',
      phase: 'coordination',
      callId: 'w1',
      toolName: 'web_search',
      result: 'Paris',
      isError: false,
      durationMs: 250,
      providerExecuted: true,
    });
    state = replay(b.events);
    expect(agentView(state, 'gpt').tool).toMatchObject({ state: 'ok', durationMs: 250 });
    expect(agentView(state, 'gpt').transcript.at(-1)).toMatchObject({
      kind: 'tool',
      toolName: 'web_search',
      providerExecuted: true,
      result: 'Paris',
      isError: false,
    });
    expect(state.run.agents[0]?.toolCalls).toBe(1);
  });
});

describe('reduceView: planning mode, MCP servers and tool approvals', () => {
  const timelineOf = (state: ViewState) => state.timeline.map((e) => [e.kind, e.agentId, e.text]);

  it('shows a deferred call as planned, not as run, in the panel and the transcript', () => {
    const state = replay(toolRun().events.filter((e) => e.type !== 'tool.approval.requested'));
    const gpt = agentView(state, 'gpt');
    const planned = gpt.transcript.find((e) => e.kind === 'tool' && e.callId === 'c1');
    expect(planned).toMatchObject({ toolName: 'write_file', deferred: true, isError: false, approval: null });

    const b = eventBuilder();
    b.emit({ type: 'run.started', question: 'Q', agents: AGENTS.slice(0, 1), settings: {} });
    b.emit({ type: 'agent.turn.started', agentId: 'gpt', turn: 1, visibleAnswers: [] });
    b.emit({
      type: 'tool.call.started',
      agentId: 'gpt',
      phase: 'coordination',
      callId: 'w',
      toolName: 'write_file',
      arguments: {},
    });
    b.emit({
      type: 'tool.call.finished',
      agentId: 'gpt',
      phase: 'coordination',
      callId: 'w',
      toolName: 'write_file',
      result: 'recorded',
      isError: false,
      durationMs: 0,
      deferred: true,
    });
    expect(agentView(replay(b.events), 'gpt').tool).toMatchObject({
      toolName: 'write_file',
      state: 'deferred',
    });
  });

  it('puts MCP servers and the planning classification on the timeline', () => {
    const state = replay(toolRun().events);
    const entries = timelineOf(state);
    expect(entries).toContainEqual(['mcp-ready', 'gpt', 'MCP "fs" ready: 5 tools']);
    expect(entries).toContainEqual([
      'mcp-failed',
      'claude',
      'MCP "web" FAILED: spawn npx ENOENT (retry in 30s)',
    ]);
    expect(entries).toContainEqual([
      'planning',
      null,
      'PLANNING: run now: read_file; deferred to the final presenter: write_file (unhinted tools classified by gpt)',
    ]);
    expect(agentView(state, 'claude').transcript[0]).toMatchObject({
      kind: 'mcp-failed',
      server: 'web',
      retryInSeconds: 30,
    });

    const b = eventBuilder();
    b.emit({ type: 'run.started', question: 'Q', agents: AGENTS.slice(0, 1), settings: {} });
    b.emit({ type: 'mcp.server.ready', agentId: 'gpt', server: 'one', tools: ['x'], durationMs: 5 });
    b.emit({
      type: 'mcp.server.failed',
      agentId: 'gpt',
      server: 'two',
      message: 'gone',
      retryInSeconds: null,
    });
    b.emit({
      type: 'planning.tools.classified',
      decisions: [{ agentId: 'gpt', toolName: 'x', allowed: false, source: 'default' }],
      analysisAgentId: null,
      error: { code: 'planning_analysis_failed', message: 'model said no' },
    });
    expect(timelineOf(replay(b.events)).slice(1)).toEqual([
      ['mcp-ready', 'gpt', 'MCP "one" ready: 1 tool'],
      ['mcp-failed', 'gpt', 'MCP "two" FAILED: gone (off for this run)'],
      [
        'planning',
        null,
        'PLANNING: run now: none; deferred to the final presenter: x; classification FAILED, unhinted tools deferred: model said no',
      ],
    ]);
  });

  it('queues pending approvals in order and removes each when it is resolved', () => {
    const b = toolRun();
    let state = replay(b.events);
    expect(state.approvals.map((a) => [a.agentId, a.callId, a.toolName, a.args])).toEqual([
      ['claude', 'c2', 'read_file', '{"path":"report.md"}'],
      ['gpt', 'c3', 'fetch', '{"url":"https://example.com/paris"}'],
    ]);
    expect(agentView(state, 'claude').tool).toMatchObject({ callId: 'c2', state: 'awaiting-approval' });
    expect(agentView(state, 'claude').transcript.at(-1)).toMatchObject({ approval: { state: 'pending' } });
    expect(timelineOf(state).filter(([kind]) => kind === 'approval')).toEqual([
      ['approval', 'claude', 'APPROVAL NEEDED: read_file {"path":"report.md"}'],
      ['approval', 'gpt', 'APPROVAL NEEDED: fetch {"url":"https://example.com/paris"}'],
    ]);

    // The second is answered first: the queue keeps the first.
    b.emit({
      type: 'tool.approval.resolved',
      agentId: 'gpt',
      callId: 'c3',
      toolName: 'fetch',
      approved: true,
    });
    state = replay(b.events);
    expect(state.approvals.map((a) => a.callId)).toEqual(['c2']);
    expect(agentView(state, 'gpt').tool).toMatchObject({ callId: 'c3', state: 'running' });
    b.emit({
      type: 'tool.approval.resolved',
      agentId: 'claude',
      callId: 'c2',
      toolName: 'read_file',
      approved: false,
      reason: 'denied by the user',
    });
    b.emit({
      type: 'tool.call.finished',
      agentId: 'claude',
      phase: 'coordination',
      callId: 'c2',
      toolName: 'read_file',
      result: 'Tool read_file was not approved: denied by the user',
      isError: true,
      durationMs: 1000,
    });
    state = replay(b.events);
    expect(state.approvals).toEqual([]);
    expect(agentView(state, 'claude').tool).toMatchObject({ state: 'denied' });
    expect(agentView(state, 'claude').transcript.at(-1)).toMatchObject({
      kind: 'tool',
      isError: true,
      approval: { state: 'denied', reason: 'denied by the user' },
    });
    expect(timelineOf(state).slice(-2)).toEqual([
      ['approved', 'gpt', 'fetch approved'],
      ['denied', 'claude', 'read_file DENIED: denied by the user'],
    ]);
  });

  it('forgets the approvals of a turn that ended, and all of them when the run ends', () => {
    const b = toolRun();
    b.emit({
      type: 'agent.turn.finished',
      agentId: 'claude',
      turn: 1,
      outcome: 'aborted',
      durationMs: 10,
      consecutiveFailures: 0,
    });
    let state = replay(b.events);
    expect(state.approvals.map((a) => a.callId)).toEqual(['c3']);
    expect(agentView(state, 'claude').tool).toBeNull();
    b.emit({
      type: 'run.finished',
      status: 'cancelled',
      exitCode: 130,
      winnerId: null,
      finalAnswer: null,
      durationMs: 2000,
      usage: {},
      costUsd: {},
    });
    state = replay(b.events);
    expect(state.approvals).toEqual([]);
    expect(agentView(state, 'gpt').tool).toBeNull();
  });
});

describe('answerApproval', () => {
  it('answers the oldest unanswered approval with y or n, and does nothing when none waits', () => {
    const view = replay(toolRun().events);
    const ui = initialUiState();
    expect(currentApproval(view, ui)).toMatchObject({ agentId: 'claude', callId: 'c2' });
    expect(answerApproval(view, ui, { input: 'x' })).toBeNull();
    expect(answerApproval(view, ui, { input: 'y', ctrl: true })).toBeNull();

    const first = answerApproval(view, ui, { input: 'y' });
    expect(first).toMatchObject({ approved: true, approval: { agentId: 'claude', callId: 'c2' } });
    // The prompt moves on before the resolution arrives.
    expect(currentApproval(view, first!.ui)).toMatchObject({ agentId: 'gpt', callId: 'c3' });
    const second = answerApproval(view, first!.ui, { input: 'n' });
    expect(second).toMatchObject({ approved: false, approval: { agentId: 'gpt', callId: 'c3' } });
    expect(currentApproval(view, second!.ui)).toBeNull();
    expect(answerApproval(view, second!.ui, { input: 'y' })).toBeNull();

    // Nothing pending: y and n mean nothing (and reduceUi ignores them).
    const idle = replay(threeAgentRun('streaming').events);
    expect(answerApproval(idle, ui, { input: 'y' })).toBeNull();
    expect(reduceUi(ui, { input: 'n' }, { agentCount: 3 })).toBe(ui);
  });
});
