import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { textWidth } from '../../util/text.js';
import { AGENTS, eventBuilder, threeAgentRun } from '../fixtures.test-support.js';
import { renderAt } from '../render-helpers.test-support.js';
import { LiveViewStore } from '../store.js';
import { transcriptLines } from '../transcript-lines.js';
import { agentBadge, initialUiState, initialViewState, reduceViewAll, type UiState } from '../view-state.js';
import { markdownLines } from '../markdown-lines.js';
import { LiveView } from './live-view.js';
import { LiveViewApp } from './live-view-app.js';
import { renderFinalScreen } from './final-screen.js';

afterEach(() => cleanup());

/** A run in coordination, plus a message to every agent that gpt has read. */
function steeredRun() {
  const b = threeAgentRun('start');
  b.emit({ type: 'human.message', text: 'Answer in French.', target: null, source: 'terminal' });
  const seq = b.events.at(-1)!.seq;
  b.emit({ type: 'human.message.delivered', agentId: 'gpt', messageSeq: seq });
  return b;
}

describe('steering in the live view: events', () => {
  it('a message shows in the timeline when accepted and in an agent’s transcript where it read it', () => {
    const view = reduceViewAll(initialViewState(), steeredRun().events);
    const entry = view.timeline.find((t) => t.kind === 'human');
    expect(entry?.text).toBe('MESSAGE from the user (terminal) to all agents: Answer in French.');
    expect(view.messages).toMatchObject([{ text: 'Answer in French.', target: null, deliveredTo: ['gpt'] }]);
    const gpt = transcriptLines(view.agents['gpt'], 60).map((l) => l.text);
    expect(gpt).toContain('✉ message from the user (to all agents)');
    expect(gpt).toContain('  Answer in French.');
    // claude has not read it yet.
    expect(
      transcriptLines(view.agents['claude'], 60)
        .map((l) => l.text)
        .join('\n'),
    ).not.toContain('French');
  });

  it('answer now is in the timeline; a vote being written gives the "voting" badge, not a tool line', () => {
    const b = threeAgentRun('start');
    b.emit({
      type: 'tool.call.started',
      agentId: 'gpt',
      phase: 'coordination',
      callId: 'v1',
      toolName: 'vote',
      arguments: {},
    });
    let view = reduceViewAll(initialViewState(), b.events);
    const gpt = view.run.agents[0]!;
    expect(agentBadge(view.run, gpt, view.agents['gpt'])).toEqual({ kind: 'voting', text: 'voting' });
    expect(view.agents['gpt']?.tool).toBeNull();
    b.emit({
      type: 'tool.call.finished',
      agentId: 'gpt',
      phase: 'coordination',
      callId: 'v1',
      toolName: 'vote',
      result: 'vote written',
      isError: false,
      durationMs: 5,
    });
    b.emit({ type: 'coordination.answer_now', source: 'web' });
    view = reduceViewAll(initialViewState(), b.events);
    expect(agentBadge(view.run, view.run.agents[0]!, view.agents['gpt']).kind).toBe('thinking');
    expect(view.timeline.at(-1)?.text).toBe(
      'ANSWER NOW requested (web): the best current answer is presented',
    );
  });
});

describe('steering in the live view: keys', () => {
  const running = () => {
    const store = new LiveViewStore({
      onMessage: vi.fn(() => ({ ok: true })),
      onAnswerNow: vi.fn(() => ({ ok: false, message: 'no agent has answered yet' })),
    });
    for (const event of threeAgentRun('start').events) store.handle(event);
    store.flush();
    return store;
  };

  it('m opens a one-line message (q types, it does not cancel), Enter sends it to every agent', () => {
    const onMessage = vi.fn(() => ({ ok: true }));
    const onCancel = vi.fn();
    const store = new LiveViewStore({ onMessage, onCancel });
    for (const event of threeAgentRun('start').events) store.handle(event);
    store.flush();
    store.key({ input: 'm' });
    for (const input of ['q', 'u', 'i', 'c', 'k']) store.key({ input });
    store.key({ input: '', backspace: true });
    store.key({ input: 'k!' });
    expect(store.getSnapshot().ui.steering.input).toEqual({ target: null, text: 'quick!' });
    store.key({ input: '\r', return: true });
    expect(onMessage).toHaveBeenCalledWith('quick!', null);
    expect(onCancel).not.toHaveBeenCalled();
    expect(store.getSnapshot().ui.steering).toMatchObject({
      input: null,
      notice: { ok: true, text: '✔ message sent to every agent' },
    });
    // The notice goes with the next key.
    store.key({ input: 'z' });
    expect(store.getSnapshot().ui.steering.notice).toBeNull();
  });

  it('m in an agent’s transcript writes to that agent; Esc drops the message', () => {
    const store = running();
    store.key({ input: '2' });
    store.key({ input: 'm' });
    expect(store.getSnapshot().ui.steering.input).toEqual({ target: 'claude', text: '' });
    store.key({ input: 'x' });
    store.key({ input: '', escape: true });
    expect(store.getSnapshot().ui).toMatchObject({ mode: 'agent', steering: { input: null } });
  });

  it('a asks to confirm; y carries out "answer now" and the footer says how it went', () => {
    const store = running();
    store.key({ input: 'a' });
    expect(store.getSnapshot().ui.steering.confirmAnswerNow).toBe(true);
    store.key({ input: 'y' });
    expect(store.getSnapshot().ui.steering).toMatchObject({
      confirmAnswerNow: false,
      notice: { ok: false, text: '✖ no agent has answered yet' },
    });
  });

  it('without callbacks, or once the run is over, m and a do nothing', () => {
    const store = new LiveViewStore({});
    for (const event of threeAgentRun('start').events) store.handle(event);
    store.flush();
    store.key({ input: 'm' });
    expect(store.getSnapshot().ui.steering.input).toBeNull();
    const done = running();
    for (const event of threeAgentRun('finish').events.slice(-1)) done.handle(event);
    done.flush();
    expect(done.steering).toEqual({ canMessage: false, canAnswerNow: false });
  });
});

describe('steering in the live view: keys that arrive together', () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
  function app() {
    const onMessage = vi.fn((_text: string, _agentId: string | null) => ({ ok: true }));
    const onCancel = vi.fn();
    const store = new LiveViewStore({ onMessage, onCancel });
    const rendered = renderAt(<LiveViewApp store={store} columns={100} rows={30} />, 100);
    for (const event of threeAgentRun('start').events) store.handle(event);
    store.flush();
    return { store, onMessage, onCancel, stdin: rendered.stdin };
  }

  it('text and Enter in one read send the message (a busy machine, SSH, tmux send-keys)', async () => {
    const { stdin, onMessage, store } = app();
    await settle();
    stdin.write('m');
    await settle();
    stdin.write('hello steering one\r');
    await settle();
    expect(onMessage).toHaveBeenCalledWith('hello steering one', null);
    expect(store.getSnapshot().ui.steering.input).toBeNull();
  });

  it('a command key and the keys after it in one read are each taken: m, text, Enter', async () => {
    const { stdin, onMessage } = app();
    await settle();
    stdin.write('mquick\r');
    await settle();
    expect(onMessage).toHaveBeenCalledWith('quick', null);
  });

  it('a bracketed paste goes into the message as text: its Enter does not send, its q does not cancel', async () => {
    const { stdin, onMessage, onCancel, store } = app();
    await settle();
    stdin.write('\u001b[200~q pasted\rline\u001b[201~');
    await settle();
    expect(onCancel).not.toHaveBeenCalled(); // a paste outside the input is dropped, not run as keys
    stdin.write('m');
    await settle();
    stdin.write('\u001b[200~first\rsecond q\u001b[201~');
    await settle();
    expect(onMessage).not.toHaveBeenCalled();
    expect(store.getSnapshot().ui.steering.input?.text).toBe('first second q');
    stdin.write('\r');
    await settle();
    expect(onMessage).toHaveBeenCalledWith('first second q', null);
    expect(onCancel).not.toHaveBeenCalled();
  });
});

describe('steering in the live view: the footer at 80 columns', () => {
  const frameAt = (ui: Partial<UiState>, columns = 80) => {
    const view = reduceViewAll(initialViewState(), threeAgentRun('start').events);
    const el = (
      <LiveView
        view={view}
        ui={{ ...initialUiState(), ...ui }}
        columns={columns}
        rows={24}
        now={Date.now()}
        steering={{ canMessage: true, canAnswerNow: true }}
      />
    );
    return (renderAt(el, columns).lastFrame() ?? '').split('\n');
  };

  it('fits every key that matters in 80 columns, on the panels and in a transcript', () => {
    const panels = frameAt({});
    expect(panels.at(-1)).toBe('1-3 transcript · r timeline · v votes · m message · a answer now · q cancel');
    const agent = frameAt({ mode: 'agent', selectedAgent: 1 });
    const footer = agent.at(-1) ?? '';
    expect(textWidth(footer)).toBeLessThanOrEqual(80);
    for (const hint of ['Esc back', 'm message claude', 'a answer now', 'q cancel'])
      expect(footer).toContain(hint);
    for (const frame of [panels, agent]) for (const l of frame) expect(textWidth(l)).toBeLessThanOrEqual(80);
  });

  it('shows the message being typed, and the confirmation, in the footer’s row', () => {
    const typing = frameAt({
      steering: { input: { target: null, text: 'x'.repeat(200) }, confirmAnswerNow: false, notice: null },
    });
    const footer = typing.at(-1) ?? '';
    expect(footer.startsWith('✉ to every agent › …xxx')).toBe(true);
    expect(footer).toContain('Enter send · Esc cancel');
    expect(textWidth(footer)).toBeLessThanOrEqual(80);
    const confirm = frameAt({ steering: { input: null, confirmAnswerNow: true, notice: null } });
    expect(confirm.at(-1)).toMatch(/^Answer now\? .* y yes · n no$/);
  });
});

describe('the final answer as Markdown', () => {
  const answer = [
    '## Summary',
    '',
    'Paris is **the capital** of *France*, see [Wikipedia](https://en.wikipedia.org/wiki/Paris).',
    '',
    '- first point',
    '- second with `code`',
    '',
    '```python',
    'print("bonjour")',
    '```',
    '',
    'Escapes stay inert: \x1b]0;PWNED\x07 \x1b[31mred',
  ].join('\n');

  it('renders headings, emphasis, links, lists and code blocks without their Markdown marks', () => {
    const b = eventBuilder();
    b.emit({ type: 'run.started', question: 'Q', agents: AGENTS.slice(0, 1), settings: {} });
    b.emit({
      type: 'presentation.finished',
      agentId: 'gpt',
      label: 'agent1.final',
      content: answer,
      fallback: false,
    });
    const store = new LiveViewStore({});
    for (const event of b.events) store.handle(event);
    const screen = renderFinalScreen(store.current().view, 120);
    expect(screen).toContain('Summary');
    expect(screen).toContain(
      'Paris is the capital of France, see Wikipedia (https://en.wikipedia.org/wiki/Paris).',
    );
    expect(screen).toContain('• first point');
    expect(screen).toContain('• second with code');
    expect(screen).toContain('│ print("bonjour")');
    expect(screen).not.toMatch(/##|\*\*|```|\]\(/);
    // The answer's escape sequences are shown escaped; only massgen's own styling reaches the terminal.
    expect(screen).toContain('␛]0;PWNED␇ ␛[31mred');
    expect(screen).not.toContain('\x1b]');
  });

  it('wraps to the width, each line one row, and keeps styles on the pieces of a line', () => {
    const lines = markdownLines('Some **bold words** and a long tail '.repeat(5), 30);
    for (const l of lines) expect(textWidth(l.text)).toBeLessThanOrEqual(30);
    expect(lines[0]?.spans?.find((s) => s.text === 'bold words')).toMatchObject({ bold: true });
    const heading = markdownLines('# Title', 30)[0];
    expect(heading?.spans?.[0]).toMatchObject({ text: 'Title', bold: true });
  });
});
