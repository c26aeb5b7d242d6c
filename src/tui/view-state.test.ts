import { describe, expect, it } from 'vitest';
import { Orchestrator } from '../coordination/index.js';
import { ScriptedBackend, step, type RecordedRequest, type ScriptStep } from '../testing/index.js';
import type { RunEvent } from '../types/events.js';
import { AGENTS, QUESTION, eventBuilder, stages, threeAgentRun, toolRun } from './fixtures.test-support.js';
import {
  agentBadge,
  agentRows,
  answerApproval,
  currentApproval,
  initialUiState,
  initialViewState,
  reduceUi,
  reduceViewAll,
  type UiKey,
  type UiState,
  type ViewState,
} from './view-state.js';

const replay = (events: readonly RunEvent[]): ViewState => reduceViewAll(initialViewState(), events);

/** Badge text per agent id. */
const badges = (state: ViewState): Record<string, string> =>
  Object.fromEntries(agentRows(state).map(({ agent, badge }) => [agent.agentId, badge.text]));

const agentView = (state: ViewState, id: string) => {
  const view = state.agents[id];
  if (!view) throw new Error(`no view for ${id}`);
  return view;
};

describe('reduceView: streaming text', () => {
  it('accumulates deltas within a turn and resets when the next turn starts', () => {
    const b = eventBuilder();
    b.emit({ type: 'run.started', question: 'Q', agents: AGENTS.slice(0, 1), settings: {} });
    b.emit({ type: 'agent.turn.started', agentId: 'gpt', turn: 1, visibleAnswers: [] });
    b.emit({ type: 'agent.step.started', agentId: 'gpt', phase: 'coordination', step: 1 });
    b.emit({ type: 'agent.text.start', agentId: 'gpt', phase: 'coordination', kind: 'reasoning' });
    b.emit({
      type: 'agent.text.delta',
      agentId: 'gpt',
      phase: 'coordination',
      kind: 'reasoning',
      text: 'hmm ',
    });
    b.emit({ type: 'agent.text.end', agentId: 'gpt', phase: 'coordination', kind: 'reasoning' });
    b.emit({ type: 'agent.text.start', agentId: 'gpt', phase: 'coordination', kind: 'text' });
    for (const text of ['Hel', 'lo ', 'world']) {
      b.emit({ type: 'agent.text.delta', agentId: 'gpt', phase: 'coordination', kind: 'text', text });
    }
    let state = replay(b.events);
    expect(agentView(state, 'gpt')).toMatchObject({
      text: 'Hello world',
      reasoning: 'hmm ',
      streaming: 'text',
      activity: 'answering',
    });
    expect(badges(state)['gpt']).toBe('answering');
    // One transcript entry per text block, not one per delta.
    expect(agentView(state, 'gpt').transcript.map((e) => e.kind)).toEqual(['turn', 'text', 'text']);

    // A second step of the same turn keeps the text of the first.
    b.emit({ type: 'agent.text.end', agentId: 'gpt', phase: 'coordination', kind: 'text' });
    b.emit({ type: 'agent.step.started', agentId: 'gpt', phase: 'coordination', step: 2 });
    b.emit({ type: 'agent.text.delta', agentId: 'gpt', phase: 'coordination', kind: 'text', text: '!' });
    state = replay(b.events);
    expect(agentView(state, 'gpt').text).toBe('Hello world!');

    b.emit({
      type: 'agent.turn.finished',
      agentId: 'gpt',
      turn: 1,
      outcome: 'answered',
      durationMs: 5,
      consecutiveFailures: 0,
    });
    b.emit({ type: 'agent.turn.started', agentId: 'gpt', turn: 2, visibleAnswers: ['agent1.1'] });
    state = replay(b.events);
    expect(agentView(state, 'gpt')).toMatchObject({
      text: '',
      reasoning: '',
      activity: 'thinking',
      tool: null,
    });
    // The transcript keeps everything.
    const texts = agentView(state, 'gpt').transcript.flatMap((e) => (e.kind === 'text' ? [e.text] : []));
    expect(texts).toEqual(['hmm ', 'Hello world', '!']);
  });

  it('discards the partial text of a step that is retried, and only that step', () => {
    const b = eventBuilder();
    b.emit({ type: 'run.started', question: 'Q', agents: AGENTS.slice(0, 1), settings: {} });
    b.emit({ type: 'agent.turn.started', agentId: 'gpt', turn: 1, visibleAnswers: [] });
    b.emit({ type: 'agent.step.started', agentId: 'gpt', phase: 'coordination', step: 1 });
    b.emit({
      type: 'agent.text.delta',
      agentId: 'gpt',
      phase: 'coordination',
      kind: 'text',
      text: 'Step one. ',
    });
    b.emit({ type: 'agent.text.end', agentId: 'gpt', phase: 'coordination', kind: 'text' });
    b.emit({ type: 'agent.step.started', agentId: 'gpt', phase: 'coordination', step: 2 });
    b.emit({ type: 'agent.text.start', agentId: 'gpt', phase: 'coordination', kind: 'text' });
    b.emit({
      type: 'agent.text.delta',
      agentId: 'gpt',
      phase: 'coordination',
      kind: 'text',
      text: 'Half a sen',
    });
    b.emit({
      type: 'agent.step.retrying',
      agentId: 'gpt',
      phase: 'coordination',
      attempt: 1,
      delayMs: 1500,
      error: { code: 'provider_error', message: 'HTTP 503' },
    });
    let state = replay(b.events);
    expect(agentView(state, 'gpt')).toMatchObject({
      text: 'Step one. ',
      activity: 'retrying',
      retry: { attempt: 1, delayMs: 1500, message: 'HTTP 503' },
    });
    expect(badges(state)['gpt']).toBe('retrying (1)');
    expect(agentView(state, 'gpt').transcript.map((e) => e.kind)).toEqual(['turn', 'text', 'retry']);
    expect(state.timeline.at(-1)).toMatchObject({ kind: 'retry', agentId: 'gpt' });

    // The retry streams the step again; a second retry cuts back to the same point.
    b.emit({ type: 'agent.text.start', agentId: 'gpt', phase: 'coordination', kind: 'text' });
    b.emit({ type: 'agent.text.delta', agentId: 'gpt', phase: 'coordination', kind: 'text', text: 'Half' });
    b.emit({
      type: 'agent.step.retrying',
      agentId: 'gpt',
      phase: 'coordination',
      attempt: 2,
      delayMs: 3000,
      error: { code: 'provider_error', message: 'HTTP 503' },
    });
    b.emit({ type: 'agent.text.start', agentId: 'gpt', phase: 'coordination', kind: 'text' });
    b.emit({
      type: 'agent.text.delta',
      agentId: 'gpt',
      phase: 'coordination',
      kind: 'text',
      text: 'A full sentence.',
    });
    state = replay(b.events);
    expect(agentView(state, 'gpt')).toMatchObject({
      text: 'Step one. A full sentence.',
      retry: null,
      activity: 'answering',
    });
    const texts = agentView(state, 'gpt').transcript.flatMap((e) => (e.kind === 'text' ? [e.text] : []));
    expect(texts).toEqual(['Step one. ', 'A full sentence.']);
  });

  it('streams the presentation live and cuts it back on a retry', () => {
    const b = threeAgentRun('votingAndDrop');
    b.emit({
      type: 'coordination.finished',
      reason: 'consensus',
      winnerId: 'claude',
      winnerLabel: 'agent2.1',
      tallies: { claude: 2 },
    });
    b.emit({ type: 'presentation.started', agentId: 'claude', mode: 'present' });
    b.emit({ type: 'agent.step.started', agentId: 'claude', phase: 'presentation', step: 1 });
    b.emit({ type: 'agent.text.delta', agentId: 'claude', phase: 'presentation', kind: 'text', text: 'Par' });
    let state = replay(b.events);
    expect(state.presentation).toEqual({ agentId: 'claude', mode: 'present', text: 'Par' });
    expect(agentView(state, 'claude').text).toBe('Par');
    expect(badges(state)['claude']).toBe('presenting');
    b.emit({
      type: 'agent.step.retrying',
      agentId: 'claude',
      phase: 'presentation',
      attempt: 1,
      delayMs: 10,
      error: { code: 'provider_error', message: 'HTTP 500' },
    });
    state = replay(b.events);
    expect(state.presentation?.text).toBe('');
    expect(agentView(state, 'claude').text).toBe('');
    b.emit({
      type: 'agent.text.delta',
      agentId: 'claude',
      phase: 'presentation',
      kind: 'text',
      text: 'Paris.',
    });
    expect(replay(b.events).presentation?.text).toBe('Paris.');
  });
});

describe('reduceView: tool activity', () => {
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

describe('reduceView: a full three-agent run', () => {
  it('tracks statuses and badges through an update, a stale vote, a restart, a failure and a drop', () => {
    const b = eventBuilder();
    const { start, streaming, firstAnswers, votingAndDrop, presentation, finish } = stages;
    start(b);
    let state = replay(b.events);
    expect(state.run.phase).toBe('coordinating');
    expect(state.run.question).toBe(QUESTION);
    expect(badges(state)).toEqual({ gpt: 'thinking', claude: 'thinking', gemini: 'thinking' });

    streaming(b);
    state = replay(b.events);
    expect(badges(state)).toEqual({ gpt: 'thinking', claude: 'retrying (1)', gemini: 'thinking' });
    expect(agentView(state, 'gpt').text).toBe('Paris has been the capital since the 10th century.');
    expect(agentView(state, 'gpt').tool).toMatchObject({ toolName: 'lookup', state: 'running' });
    expect(agentView(state, 'claude').text).toBe('');

    firstAnswers(b);
    state = replay(b.events);
    expect(badges(state)).toEqual({ gpt: 'answered', claude: 'answered', gemini: 'thinking' });
    expect(state.run.agents.map((a) => a.latestLabel)).toEqual(['agent1.1', 'agent2.1', null]);
    expect(agentView(state, 'claude').transcript.map((e) => e.kind)).toEqual([
      'turn',
      'retry',
      'text',
      'update',
      'answer',
    ]);
    expect(state.run.agents[2]?.totalFailures).toBe(1);

    // Mid-way: claude got the update before answering.
    const updateAt = b.events.findIndex((e) => e.type === 'agent.update.injected');
    expect(badges(replay(b.events.slice(0, updateAt + 1)))['claude']).toBe('updated (agent1.1)');

    const before = b.events.length;
    votingAndDrop(b);
    state = replay(b.events);
    // Mid-way: the restart is counted at once; a stale vote leaves the voter working, then it is updated.
    const at = (predicate: (e: RunEvent) => boolean) =>
      replay(b.events.slice(0, before + b.events.slice(before).findIndex(predicate) + 1));
    expect(at((e) => e.type === 'agent.turn.restarted').run.agents[2]?.restarts).toBe(1);
    const stale = at((e) => e.type === 'vote.cast' && !e.counted);
    expect(badges(stale)['claude']).toBe('thinking');
    expect(stale.timeline.at(-1)).toMatchObject({ kind: 'stale-vote', agentId: 'claude' });
    expect(badges(at((e) => e.type === 'agent.update.injected'))['claude']).toBe('updated (agent2.1)');
    expect(badges(at((e) => e.type === 'agent.turn.finished' && e.outcome === 'failed'))['gemini']).toBe(
      'failed',
    );
    expect(badges(state)).toEqual({ gpt: 'voted → agent2.1', claude: 'voted → agent2.1', gemini: 'dropped' });
    expect(state.run.agents.find((a) => a.agentId === 'gemini')).toMatchObject({
      restarts: 1,
      status: 'dropped',
    });
    expect(state.run.votes.map((v) => [v.voterId, v.targetLabel, v.counted])).toEqual([
      ['gpt', 'agent2.1', true],
      ['claude', 'agent1.1', false],
      ['claude', 'agent2.1', true],
    ]);
    expect(state.timeline.map((t) => t.kind)).toEqual(
      expect.arrayContaining(['update', 'restart', 'stale-vote', 'vote', 'failed', 'aborted', 'dropped']),
    );

    presentation(b);
    state = replay(b.events);
    expect(state.run.phase).toBe('presenting');
    expect(badges(state)).toEqual({ gpt: 'voted → agent2.1', claude: 'presenting', gemini: 'dropped' });
    expect(state.presentation?.text).toBe('Paris is the capital of France.\nIt has been since 987.');
    expect(state.final).toBeNull();

    finish(b);
    state = replay(b.events);
    expect(badges(state)).toEqual({ gpt: 'voted → agent2.1', claude: 'done', gemini: 'dropped' });
    expect(state.final).toEqual({
      agentId: 'claude',
      label: 'agent2.final',
      content: 'Paris is the capital of France.\nIt has been since 987.',
      fallback: false,
      error: null,
    });
    expect(state.run).toMatchObject({ phase: 'finished', status: 'completed', winnerId: 'claude' });
    expect(state.timeline.at(-1)).toMatchObject({ kind: 'finished', agentId: null });
    expect(state.timeline.map((t) => t.kind)).toContain('final');
    expect(state.eventCount).toBe(b.events.length);
  });

  it('shows the vote of an agent whose vote was reset as reset until its next turn', () => {
    const b = threeAgentRun('votingAndDrop');
    b.emit({
      type: 'answer.submitted',
      agentId: 'gpt',
      anonymousId: 'agent1',
      label: 'agent1.2',
      content: 'Better',
    });
    b.emit({ type: 'votes.reset', causedBy: 'agent1.2', clearedVoters: ['claude'] });
    let state = replay(b.events);
    expect(badges(state)['claude']).toBe('vote reset');
    expect(agentView(state, 'claude').transcript.at(-1)).toMatchObject({
      kind: 'votes-reset',
      causedBy: 'agent1.2',
    });
    expect(state.timeline.at(-1)).toMatchObject({ kind: 'votes-reset', agentId: null });
    b.emit({
      type: 'agent.turn.started',
      agentId: 'claude',
      turn: 3,
      visibleAnswers: ['agent1.2', 'agent2.1'],
    });
    state = replay(b.events);
    expect(badges(state)['claude']).toBe('thinking');
  });

  it('marks agents still in a turn when coordination ends as stopped, and keeps a fallback final answer', () => {
    const b = threeAgentRun('firstAnswers');
    b.emit({
      type: 'coordination.finished',
      reason: 'timeout',
      winnerId: 'claude',
      winnerLabel: 'agent2.1',
      tallies: {},
    });
    b.emit({ type: 'presentation.started', agentId: 'claude', mode: 'present' });
    b.emit({
      type: 'presentation.finished',
      agentId: 'claude',
      label: 'agent2.final',
      content: 'Paris — stored.',
      fallback: true,
      error: { code: 'timeout', message: 'presentation timed out' },
    });
    const state = replay(b.events);
    expect(badges(state)['gemini']).toBe('stopped');
    expect(state.final).toMatchObject({ fallback: true, error: { message: 'presentation timed out' } });
  });

  it('handles a real orchestrator run of scripted backends (retry, streamed text, a dropped agent)', async () => {
    const decide =
      (content: string) =>
      (request: RecordedRequest): ScriptStep => {
        if (!request.tools.some((t) => t.name === 'new_answer'))
          return { text: `Final: ${content}`, chunks: 4 };
        const vote = request.tools.find((t) => t.name === 'vote');
        if (!vote) return step.answer(content, { text: 'Thinking it through. '.repeat(10), chunks: 10 });
        return step.vote('agent1', 'agent1 is right');
      };
    const policy = (content: string): ScriptStep[] => Array.from({ length: 10 }, () => decide(content));
    const orchestrator = new Orchestrator({
      agents: [
        { id: 'alice', backend: new ScriptedBackend(policy('Paris.')) },
        { id: 'bob', backend: new ScriptedBackend([step.fail(503, 'overloaded', 1), ...policy('Paris!')]) },
        { id: 'carol', backend: new ScriptedBackend([step.fail(401), step.fail(401)]) },
      ],
    });
    const events: RunEvent[] = [];
    for await (const event of orchestrator.run('Capital of France?')) events.push(event);
    const state = replay(events);
    expect(state.run.status).toBe('completed');
    expect(state.final?.agentId).toBe('alice');
    expect(state.final?.content).toBe('Final: Paris.');
    expect(state.presentation?.text).toBe('Final: Paris.');
    expect(badges(state)).toMatchObject({ alice: 'done', carol: 'dropped' });
    expect(agentView(state, 'bob').transcript.some((e) => e.kind === 'retry')).toBe(true);
    // Streamed text arrives in many deltas but makes one transcript entry per block.
    const aliceTexts = agentView(state, 'alice').transcript.filter((e) => e.kind === 'text');
    expect(aliceTexts[0]).toMatchObject({ text: 'Thinking it through. '.repeat(10) });
    expect(state.timeline.filter((t) => t.kind === 'dropped').map((t) => t.agentId)).toEqual(['carol']);
  });

  it('reduces thousands of deltas quickly', () => {
    const b = eventBuilder();
    b.emit({ type: 'run.started', question: 'Q', agents: AGENTS, settings: {} });
    for (const { agentId } of AGENTS) {
      b.emit({ type: 'agent.turn.started', agentId, turn: 1, visibleAnswers: [] });
      b.emit({ type: 'agent.text.start', agentId, phase: 'coordination', kind: 'text' });
    }
    for (let i = 0; i < 6000; i++) {
      const agentId = AGENTS[i % 3]?.agentId ?? 'gpt';
      b.emit(
        { type: 'agent.text.delta', agentId, phase: 'coordination', kind: 'text', text: `word${i} ` },
        1,
      );
    }
    const started = performance.now();
    const state = replay(b.events);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(agentView(state, 'gpt').text.split(' ').length).toBeGreaterThan(1999);
    expect(agentView(state, 'gpt').transcript).toHaveLength(2);
  });
});

describe('agentBadge', () => {
  it('follows RunState statuses', () => {
    const state = replay(threeAgentRun('finish').events);
    const claude = state.run.agents[1];
    if (!claude) throw new Error('no claude');
    expect(agentBadge(state.run, { ...claude, status: 'waiting' }, undefined).kind).toBe('stopped');
    expect(agentBadge(state.run, { ...claude, status: 'failed' }, undefined)).toEqual({
      kind: 'failed',
      text: 'failed',
    });
    expect(agentBadge(initialViewState().run, { ...claude, status: 'waiting' }, undefined).kind).toBe(
      'waiting',
    );
  });
});

describe('reduceUi', () => {
  const context = { agentCount: 3 };
  const press = (ui: UiState, ...keys: (string | UiKey)[]): UiState =>
    keys.reduce<UiState>((u, k) => reduceUi(u, typeof k === 'string' ? { input: k } : k, context), ui);

  it('opens an agent transcript with 1..9 and ignores digits past the last agent', () => {
    expect(press(initialUiState(), '2')).toMatchObject({ mode: 'agent', selectedAgent: 1 });
    const ui = initialUiState();
    expect(press(ui, '4')).toBe(ui);
    expect(press(ui, '9')).toBe(ui);
    expect(press(ui, '0')).toBe(ui);
    expect(press(press(ui, '1'), '7')).toMatchObject({ mode: 'agent', selectedAgent: 0 });
  });

  it('switches to the timeline and the votes, and back with Esc or b', () => {
    expect(press(initialUiState(), 'r').mode).toBe('table');
    expect(press(initialUiState(), 'v').mode).toBe('votes');
    expect(press(initialUiState(), 'r', { input: '', escape: true }).mode).toBe('panels');
    expect(press(initialUiState(), '3', 'b')).toMatchObject({ mode: 'panels', scroll: 0 });
    const ui = initialUiState();
    expect(press(ui, { input: '', escape: true })).toBe(ui);
    expect(press(ui, 'x')).toBe(ui);
  });

  it('cycles agents with the arrows in the transcript', () => {
    expect(press(initialUiState(), '1', { input: '', leftArrow: true }).selectedAgent).toBe(2);
    expect(press(initialUiState(), '3', { input: '', rightArrow: true }).selectedAgent).toBe(0);
  });

  it('records a cancel request for q and Ctrl-C only', () => {
    expect(press(initialUiState(), 'q').cancelRequested).toBe(true);
    expect(press(initialUiState(), { input: 'c', ctrl: true }).cancelRequested).toBe(true);
    expect(press(initialUiState(), 'c').cancelRequested).toBe(false);
    expect(press(initialUiState(), { input: 'q', ctrl: true }).cancelRequested).toBe(false);
    const cancelled = press(initialUiState(), 'q');
    expect(press(cancelled, 'q')).toBe(cancelled);
  });

  it('scrolls the scrolling screens within bounds', () => {
    const ui = press(initialUiState(), 'r');
    const up = (u: UiState, maxScroll?: number) =>
      reduceUi(
        u,
        { input: '', upArrow: true },
        { agentCount: 3, ...(maxScroll === undefined ? {} : { maxScroll }) },
      );
    expect(up(ui).scroll).toBe(1);
    expect(up(up(up(ui, 2), 2), 2).scroll).toBe(2);
    expect(reduceUi(ui, { input: '', pageUp: true }, { agentCount: 3, maxScroll: 50 }).scroll).toBe(10);
    expect(reduceUi(ui, { input: '', home: true }, { agentCount: 3, maxScroll: 50 }).scroll).toBe(50);
    expect(reduceUi(up(ui), { input: '', end: true }, context).scroll).toBe(0);
    expect(reduceUi(ui, { input: '', downArrow: true }, context)).toBe(ui);
    // The panels do not scroll.
    const panels = initialUiState();
    expect(up(panels)).toBe(panels);
  });
});
