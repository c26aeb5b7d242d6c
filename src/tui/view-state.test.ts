import { describe, expect, it } from 'vitest';
import { Orchestrator } from '../coordination/index.js';
import { ScriptedBackend, step, type RecordedRequest, type ScriptStep } from '../testing/index.js';
import type { RunEvent } from '../types/events.js';
import { AGENTS, QUESTION, eventBuilder, stages, threeAgentRun } from './fixtures.test-support.js';
import {
  agentBadge,
  agentRows,
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
    const state = replay(b.events);
    expect(agentView(state, 'gpt').text.split(' ').length).toBeGreaterThan(1999);
    expect(agentView(state, 'gpt').transcript).toHaveLength(2);
  });
});

describe('reduceView: context compression', () => {
  it('notes each compression in the timeline with what it saved', () => {
    const b = eventBuilder();
    b.emit({
      type: 'agent.context.compressed',
      agentId: 'gpt',
      reason: 'threshold',
      contextWindow: 128_000,
      summarisedMessages: 4,
      beforeTokens: 100_000,
      afterTokens: 50_000,
      savedTokens: 50_000,
      model: 'gpt-5-nano',
    });
    expect(replay(b.events).timeline.at(-1)).toMatchObject({
      kind: 'warning',
      agentId: 'gpt',
      text: 'context compressed: 4 older messages summarised (~100000 → ~50000 tokens, ~50000 saved)',
    });
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
