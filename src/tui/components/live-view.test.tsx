import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { Orchestrator } from '../../coordination/index.js';
import { ScriptedBackend, step } from '../../testing/index.js';
import type { RunEvent } from '../../types/events.js';
import { eventBuilder, AGENTS, threeAgentRun, toolRun } from '../fixtures.test-support.js';
import { renderAt, settle } from '../render-helpers.test-support.js';
import { LiveViewStore } from '../store.js';
import { initialUiState, initialViewState, reduceViewAll, type UiState } from '../view-state.js';
import { LiveView } from './live-view.js';
import { LiveViewApp } from './live-view-app.js';
import { renderFinalScreen } from './final-screen.js';

afterEach(() => cleanup());

/** The live view over the fixture run up to `until`, at `columns` × `rows`. */
function frameOf(
  until: Parameters<typeof threeAgentRun>[0],
  columns: number,
  rows = 30,
  ui: Partial<UiState> = {},
) {
  const b = threeAgentRun(until);
  const view = reduceViewAll(initialViewState(), b.events);
  const el = (
    <LiveView view={view} ui={{ ...initialUiState(), ...ui }} columns={columns} rows={rows} now={b.now()} />
  );
  const frame = renderAt(el, columns).lastFrame() ?? '';
  return frame;
}

const lineIndex = (frame: string, text: string) => frame.split('\n').findIndex((l) => l.includes(text));

describe('LiveView panels', () => {
  it('shows three panels side by side at 150 columns: ids, badges, labels, tokens', () => {
    const frame = frameOf('votingAndDrop', 150);
    const lines = frame.split('\n');
    const titleRow = lines[lineIndex(frame, 'gpt (agent1)')] ?? '';
    expect(titleRow).toContain('claude (agent2)');
    expect(titleRow).toContain('gemini (agent3)');
    const badgeRow = lines[lineIndex(frame, 'voted → agent2.1')] ?? '';
    expect(badgeRow).toMatch(
      /◆ voted → agent2\.1 {2}agent1\.1.*◆ voted → agent2\.1 {2}agent2\.1.*✖ dropped {2}↻1/,
    );
    expect(frame).toContain('openai/gpt-4o');
    expect(frame).toContain('3.0k tok · $0.0101');
    expect(frame).toContain('0 tok · cost unknown');
    expect(frame).toContain('✖ dropped: 2 consecutive failed turns');
    // Header: question, phase, tally, total tokens and cost; footer: key hints.
    expect(lines[0]).toContain('What is the capital of France');
    expect(lines[1]).toMatch(
      /⏱ 4\.8s · coordinating · votes: claude 2 · 6\.7k tokens · \$0\.0268 \+ unknown/,
    );
    expect(lines.at(-1)).toContain('1-3 transcript · r timeline · v votes · q cancel');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(150);
  });

  it('shows streaming text, tool activity and a retry while agents work', () => {
    const frame = frameOf('streaming', 150);
    expect(frame).toContain('Paris has been the capital since the 10th');
    expect(frame).toContain('⚙ lookup {"q":"capital of France"} …');
    expect(frame).toContain('… retrying (1)');
    expect(frame).toContain('… retry 1 in 2.0s: HTTP 529 overloaded');
    expect(frame).not.toContain('Partial gar');
  });

  it('stacks the panels vertically at 60 columns', () => {
    const frame = frameOf('votingAndDrop', 60);
    const gpt = lineIndex(frame, 'gpt (agent1)');
    const claude = lineIndex(frame, 'claude (agent2)');
    const gemini = lineIndex(frame, 'gemini (agent3)');
    expect(gpt).toBeGreaterThan(1);
    expect(claude).toBeGreaterThan(gpt);
    expect(gemini).toBeGreaterThan(claude);
    expect(frame.split('\n')[gpt]).not.toContain('claude');
    expect(frame).toContain('◆ voted → agent2.1  agent1.1  · 3.0k tok · $0.0101');
    expect(Math.max(...frame.split('\n').map((l) => l.length))).toBeLessThanOrEqual(60);
  });

  it('falls back to one row per agent when stacked panels do not fit the height', () => {
    const frame = frameOf('votingAndDrop', 60, 12);
    const lines = frame.split('\n');
    expect(lines.length).toBeLessThan(12);
    expect(lines.find((l) => l.startsWith('gpt'))).toContain('voted → agent2.1');
    expect(lines.find((l) => l.startsWith('gemini'))).toContain('dropped');
  });

  it('keeps the frame shorter than the terminal and shows the tail of a long stream', () => {
    const b = eventBuilder();
    b.emit({ type: 'run.started', question: 'Q', agents: AGENTS, settings: {} });
    b.emit({ type: 'agent.turn.started', agentId: 'gpt', turn: 1, visibleAnswers: [] });
    for (let i = 1; i <= 400; i++) {
      b.emit({
        type: 'agent.text.delta',
        agentId: 'gpt',
        phase: 'coordination',
        kind: 'text',
        text: `line ${i}\n`,
      });
    }
    const view = reduceViewAll(initialViewState(), b.events);
    const frame =
      renderAt(
        <LiveView view={view} ui={initialUiState()} columns={150} rows={20} now={b.now()} />,
        150,
      ).lastFrame() ?? '';
    expect(frame.split('\n').length).toBeLessThan(20);
    expect(frame).toContain('line 400');
    expect(frame).not.toContain('line 1 ');
  });

  it('shows the final answer prominently once the presentation is finished', () => {
    const frame = frameOf('finish', 120);
    expect(frame).toContain('★ Final answer · claude · agent2.final');
    expect(frame).toContain('It has been since 987.');
    expect(frame).toContain('claude (agent2)  ★ winner');
    expect(frame).toContain('completed');
  });
});

describe('renderFinalScreen', () => {
  it('prints the winner, the whole answer and the summary', () => {
    const b = threeAgentRun('finish');
    const screen = renderFinalScreen(reduceViewAll(initialViewState(), b.events), 100, b.now());
    expect(screen).toContain('★ Final answer · claude · agent2.final');
    expect(screen).toContain('Paris is the capital of France.');
    expect(screen).toContain('It has been since 987.');
    expect(screen).toContain('✔ Completed in 5.8s — winner claude (agent2.1) · votes: claude 2');
    expect(screen).toContain('claude: 5800 in / 570 out tokens — $0.0260');
    expect(screen).toContain('total: 8400 in / 930 out tokens — $0.0361 + unknown');
    expect(screen).toMatch(/claude \(agent2\)\s+done ★ winner/);
  });

  it('says the stored answer was used, and how a run without an answer ended', () => {
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
      content: 'Stored answer.',
      fallback: true,
      error: { code: 'timeout', message: 'presentation timed out' },
    });
    expect(renderFinalScreen(reduceViewAll(initialViewState(), b.events), 100, b.now())).toContain(
      "The presentation failed, so the winner's stored answer is shown: presentation timed out",
    );

    const cancelled = threeAgentRun('streaming');
    cancelled.emit({
      type: 'run.finished',
      status: 'cancelled',
      exitCode: 130,
      winnerId: null,
      finalAnswer: null,
      durationMs: 2000,
      usage: {},
      costUsd: {},
      error: { code: 'cancelled', message: 'interrupted' },
    });
    const screen = renderFinalScreen(
      reduceViewAll(initialViewState(), cancelled.events),
      100,
      cancelled.now(),
    );
    expect(screen).toContain('✖ Cancelled after 1.5s');
    expect(screen).not.toContain('Final answer');
    expect(screen).toMatch(/gpt \(agent1\)\s+stopped/);
  });
});

describe('a single-agent run', () => {
  it('streams the answer in the presenter panel and ends with it as the final answer', async () => {
    const orchestrator = new Orchestrator({
      agents: [
        { id: 'solo', backend: new ScriptedBackend([step.text('Paris is the capital.', { chunks: 5 })]) },
      ],
    });
    const events: RunEvent[] = [];
    for await (const event of orchestrator.run('Capital of France?')) events.push(event);
    const presenting = reduceViewAll(
      initialViewState(),
      events.slice(
        0,
        events.findIndex((e) => e.type === 'answer.submitted'),
      ),
    );
    const live =
      renderAt(
        <LiveView view={presenting} ui={initialUiState()} columns={100} rows={20} now={Date.now()} />,
        100,
      ).lastFrame() ?? '';
    expect(live).toContain('★ presenting');
    expect(live).toContain('Paris is the capital.');
    expect(live).not.toContain('votes:');

    const view = reduceViewAll(initialViewState(), events);
    expect(view.final).toMatchObject({ agentId: 'solo', content: 'Paris is the capital.', fallback: false });
    const screen = renderFinalScreen(view, 100);
    expect(screen).toContain('★ Final answer · solo · agent1.final');
    expect(screen).toMatch(/✔ Completed in [\d.]+s — winner solo \(agent1\.1\)\n/);
  });
});

describe('LiveViewApp keys', () => {
  function start() {
    const onCancel = vi.fn();
    const b = threeAgentRun('finish');
    const store = new LiveViewStore({ onCancel, now: b.now });
    const app = renderAt(<LiveViewApp store={store} columns={120} rows={40} />, 120);
    for (const event of b.events) store.handle(event);
    store.flush();
    return { app, store, onCancel };
  }
  const frame = (app: ReturnType<typeof start>['app']) => app.lastFrame() ?? '';

  it('renders batched events when the store flushes', async () => {
    const { app } = start();
    await settle();
    expect(frame(app)).toContain('★ Final answer · claude · agent2.final');
  });

  it('1 shows agent 1’s transcript, r the timeline, v the votes, Esc goes back', async () => {
    const { app } = start();
    await settle();
    app.stdin.write('1');
    await settle();
    expect(frame(app)).toContain('1. gpt (agent1) · openai/gpt-4o · voted → agent2.1');
    expect(frame(app)).toContain('⚙ lookup {"q":"capital of France"}');
    expect(frame(app)).toContain('✔ new answer agent1.1');
    expect(frame(app)).toContain('✔ vote → agent2.1 (claude): More complete: it explains why.');
    expect(frame(app)).toContain('Esc back');

    app.stdin.write('r');
    await settle();
    expect(frame(app)).toContain('Coordination timeline');
    expect(frame(app)).toMatch(/gemini\s+DROPPED: 2 consecutive failed turns/);
    expect(frame(app)).toMatch(/claude\s+VOTE agent1\.1 \(gpt\) stale, not counted/);
    expect(frame(app)).toContain('COORDINATION FINISHED (consensus); winner claude (agent2.1)');

    app.stdin.write('v');
    await settle();
    expect(frame(app)).toContain('Votes (3)');
    expect(frame(app)).toContain('Final tallies: claude 2');
    expect(frame(app)).toMatch(/gpt +→ agent2\.1 +\(claude\) +counted/);
    expect(frame(app)).toMatch(/claude +→ agent1\.1 +\(gpt\) +stale/);
    expect(frame(app)).toContain('It answers both parts of the question.');

    app.stdin.write('\u001B');
    await settle();
    expect(frame(app)).toContain('gpt (agent1)');
    expect(frame(app)).toContain('★ Final answer');
    expect(frame(app)).not.toContain('Esc back');
  });

  it('ignores digits past the last agent', async () => {
    const { app, store } = start();
    await settle();
    app.stdin.write('9');
    await settle();
    expect(store.getSnapshot().ui.mode).toBe('panels');
    app.stdin.write('3');
    await settle();
    expect(frame(app)).toContain('3. gemini (agent3)');
    expect(frame(app)).toContain('✖ dropped: 2 consecutive failed turns');
  });

  it('q calls onCancel once', async () => {
    const { app, onCancel } = start();
    await settle();
    app.stdin.write('q');
    await settle();
    app.stdin.write('q');
    await settle();
    expect(onCancel).toHaveBeenCalledTimes(1);
  });

  it('Ctrl-C calls onCancel and the header says it is cancelling', async () => {
    const onCancel = vi.fn();
    const b = threeAgentRun('streaming');
    const store = new LiveViewStore({ onCancel, now: b.now });
    const app = renderAt(<LiveViewApp store={store} columns={120} rows={30} />, 120);
    for (const event of b.events) store.handle(event);
    store.flush();
    await settle();
    app.stdin.write('\u0003');
    await settle();
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(frame(app)).toContain('cancelling…');
  });
});

describe('planning mode, MCP servers and tool approvals', () => {
  const render = (events: RunEvent[], ui: Partial<UiState> = {}, columns = 150, rows = 30) =>
    renderAt(
      <LiveView
        view={reduceViewAll(initialViewState(), events)}
        ui={{ ...initialUiState(), ...ui }}
        columns={columns}
        rows={rows}
        now={events.at(-1)?.ts ?? 0}
      />,
      columns,
    ).lastFrame() ?? '';

  it('shows the oldest pending approval prominently, with its keys and how many more wait', () => {
    const b = toolRun();
    const frame = render(b.events);
    const lines = frame.split('\n');
    // Right under the header, above the panels.
    const prompt = lineIndex(frame, '? claude wants to run read_file');
    expect(prompt).toBeGreaterThan(1);
    expect(prompt).toBeLessThan(lineIndex(frame, 'gpt (agent1)'));
    expect(lines[prompt + 1]).toContain('{"path":"report.md"}');
    expect(lines[prompt + 2]).toContain('y approve  ·  n deny  ·  1 more waiting');
    // Both panels say their call waits; gpt's earlier call was only planned.
    expect(frame).toContain('? read_file waits for approval: {"path":"report.md"}');
    expect(frame).toContain('? fetch waits for approval');
    expect(lines.length).toBeLessThan(30);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(150);

    // The prompt fits a short terminal too: the body shrinks, the frame stays shorter than the screen.
    const short = render(b.events, {}, 80, 14).split('\n');
    expect(short.length).toBeLessThan(14);
    expect(short.join('\n')).toContain('? claude wants to run read_file');
  });

  it('shows a deferred call as planned in the panel and the transcript, and MCP and planning on the timeline', () => {
    const events = toolRun().events.filter(
      (e) => !(e.type === 'tool.call.started' && e.callId !== 'c1') && e.type !== 'tool.approval.requested',
    );
    const panels = render(events);
    expect(panels).toContain('⏸ write_file planned (not run while planning)');
    expect(panels).not.toContain('wants to run');
    expect(panels).not.toContain('✓');

    const transcript = render(events, { mode: 'agent', selectedAgent: 0 });
    expect(transcript).toContain('⚙ write_file {"path":"notes.txt","content":"Paris"}');
    expect(transcript).toContain('⏸ planned — recorded for the plan, not run (planning mode)');
    expect(transcript).toContain('MCP "fs" ready in 0.3s: a, b, c, d, e');

    const timeline = render(toolRun().events, { mode: 'table' });
    expect(timeline).toMatch(/gpt\s+MCP "fs" ready: 5 tools/);
    expect(timeline).toMatch(/claude\s+MCP "web" FAILED: spawn npx ENOENT \(retry in 30s\)/);
    expect(timeline).toContain('PLANNING: run now: read_file; deferred to the final presenter: write_file');
    expect(timeline).toMatch(/claude\s+APPROVAL NEEDED: read_file/);
  });

  it('shows approvals and denials in the transcript', () => {
    const b = toolRun();
    b.emit({
      type: 'tool.approval.resolved',
      agentId: 'claude',
      callId: 'c2',
      toolName: 'read_file',
      approved: false,
      reason: 'denied by the user',
    });
    b.emit({
      type: 'tool.approval.resolved',
      agentId: 'gpt',
      callId: 'c3',
      toolName: 'fetch',
      approved: true,
    });
    const claude = render(b.events, { mode: 'agent', selectedAgent: 1 });
    expect(claude).toContain('✖ denied: denied by the user');
    expect(claude).toContain('✖ MCP "web" failed: spawn npx ENOENT (retry in 30s)');
    const gpt = render(b.events, { mode: 'agent', selectedAgent: 0 });
    expect(gpt).toContain('✔ approved');
    expect(gpt).toContain('… running');
    expect(render(b.events)).toContain('✖ read_file denied');
  });
});

describe('LiveViewApp approval keys', () => {
  function start(events: RunEvent[]) {
    const onCancel = vi.fn();
    const onApproval = vi.fn();
    const store = new LiveViewStore({ onCancel, onApproval, now: () => events.at(-1)?.ts ?? 0 });
    const app = renderAt(<LiveViewApp store={store} columns={120} rows={40} />, 120);
    for (const event of events) store.handle(event);
    store.flush();
    return { app, store, onCancel, onApproval };
  }
  const frame = (app: ReturnType<typeof start>['app']) => app.lastFrame() ?? '';

  it('y approves and n denies the call the prompt shows, one after the other', async () => {
    const b = toolRun();
    const { app, store, onApproval, onCancel } = start(b.events);
    await settle();
    expect(frame(app)).toContain('? claude wants to run read_file');
    app.stdin.write('y');
    await settle();
    expect(onApproval).toHaveBeenLastCalledWith('claude', 'c2', true);
    // The prompt moves on at once, before the run reports the resolution.
    expect(frame(app)).toContain('? gpt wants to run fetch');
    expect(frame(app)).not.toContain('more waiting');
    app.stdin.write('n');
    await settle();
    expect(onApproval).toHaveBeenLastCalledWith('gpt', 'c3', false);
    expect(frame(app)).not.toContain('wants to run');
    // Nothing waits: y and n do nothing; the other keys still work.
    app.stdin.write('y');
    app.stdin.write('n');
    await settle();
    expect(onApproval).toHaveBeenCalledTimes(2);
    app.stdin.write('r');
    await settle();
    expect(frame(app)).toContain('Coordination timeline');
    // The run resolves the calls; a new request shows the prompt again.
    b.emit({
      type: 'tool.approval.resolved',
      agentId: 'claude',
      callId: 'c2',
      toolName: 'read_file',
      approved: true,
    });
    b.emit({
      type: 'tool.approval.resolved',
      agentId: 'gpt',
      callId: 'c3',
      toolName: 'fetch',
      approved: false,
      reason: 'denied by the user',
    });
    b.emit({
      type: 'tool.approval.requested',
      agentId: 'claude',
      phase: 'coordination',
      callId: 'c4',
      toolName: 'write_file',
      arguments: { path: 'out.md' },
    });
    for (const event of b.events.slice(-3)) store.handle(event);
    store.flush();
    await settle();
    expect(frame(app)).toContain('? claude wants to run write_file');
    expect(frame(app)).toMatch(/gpt\s+fetch DENIED: denied by the user/);
    app.stdin.write('y');
    await settle();
    expect(onApproval).toHaveBeenLastCalledWith('claude', 'c4', true);
    app.stdin.write('q');
    await settle();
    expect(onCancel).toHaveBeenCalledTimes(1);
  });

  it('y and n do nothing while no approval is pending', async () => {
    const { app, store, onApproval } = start(threeAgentRun('streaming').events);
    await settle();
    app.stdin.write('y');
    app.stdin.write('n');
    await settle();
    expect(onApproval).not.toHaveBeenCalled();
    expect(store.getSnapshot().ui).toEqual(initialUiState());
  });

  it('without onApproval the prompt shows but y/n do nothing', async () => {
    const store = new LiveViewStore({ now: () => 0 });
    const app = renderAt(<LiveViewApp store={store} columns={120} rows={40} />, 120);
    for (const event of toolRun().events) store.handle(event);
    store.flush();
    await settle();
    expect(app.lastFrame()).toContain('waiting for an answer from outside this view');
    app.stdin.write('y');
    await settle();
    expect(app.lastFrame()).toContain('? claude wants to run read_file');
  });
});
