import { afterEach, describe, expect, it, vi } from 'vitest';
import { AGENTS, eventBuilder, threeAgentRun } from './fixtures.test-support.js';
import { LiveViewStore } from './store.js';
import { renderFinalScreen } from './components/final-screen.js';

describe('LiveViewStore', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  it('reduces every event but publishes thousands of deltas in a few batched snapshots', () => {
    // The publish timer on vitest's clock: "not yet" and "once, after flushMs" are facts, not pauses.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const store = new LiveViewStore({ flushMs: 30 });
    const listener = vi.fn();
    store.subscribe(listener);
    const b = eventBuilder();
    b.emit({ type: 'run.started', question: 'Q', agents: AGENTS, settings: {} });
    b.emit({ type: 'agent.turn.started', agentId: 'gpt', turn: 1, visibleAnswers: [] });
    for (let i = 0; i < 5000; i++) {
      b.emit({ type: 'agent.text.delta', agentId: 'gpt', phase: 'coordination', kind: 'text', text: 'x' }, 0);
    }
    for (const event of b.events) store.handle(event);
    expect(listener).not.toHaveBeenCalled();
    expect(store.current().view.agents['gpt']?.text).toHaveLength(5000);
    expect(store.getSnapshot().view.eventCount).toBe(0);
    vi.advanceTimersByTime(29);
    expect(listener).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(store.getSnapshot().view.agents['gpt']?.text).toHaveLength(5000);
  });

  it('publishes key presses at once and calls onCancel only the first time', () => {
    const onCancel = vi.fn();
    const store = new LiveViewStore({ onCancel });
    for (const event of threeAgentRun('start').events) store.handle(event);
    const listener = vi.fn();
    store.subscribe(listener);
    store.key({ input: '2' });
    expect(store.getSnapshot().ui).toMatchObject({ mode: 'agent', selectedAgent: 1 });
    expect(store.getSnapshot().view.run.agents).toHaveLength(3);
    store.key({ input: 'z' });
    expect(listener).toHaveBeenCalledTimes(1);
    store.key({ input: 'q' });
    store.key({ input: 'c', ctrl: true });
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(store.getSnapshot().ui.cancelRequested).toBe(true);
  });

  it('makes every event inert before reducing it, and keeps the call id for the approval answer', () => {
    const onApproval = vi.fn();
    const store = new LiveViewStore({ onApproval });
    const b = eventBuilder();
    const nasty = '\x1b]0;PWNED\x07\x1b[2J\x1b[31mFAKE\x1b[0m\u009b2J a\rb \u202Eevil 中文 😀';
    const shown = '␛]0;PWNED␇␛[2J␛[31mFAKE␛[0m\\u009B2J a␍b \\u202Eevil 中文 😀';
    const callId = 'call\x1b1';
    b.emit({ type: 'run.started', question: `Q ${nasty}`, agents: AGENTS.slice(0, 1), settings: {} });
    b.emit({ type: 'agent.turn.started', agentId: 'gpt', turn: 1, visibleAnswers: [] });
    b.emit({ type: 'agent.text.delta', agentId: 'gpt', phase: 'coordination', kind: 'text', text: nasty });
    const call = { agentId: 'gpt', phase: 'coordination', callId, toolName: `t${nasty}` } as const;
    b.emit({ type: 'tool.call.started', ...call, arguments: { q: nasty } });
    b.emit({ type: 'tool.approval.requested', ...call, arguments: { q: nasty } });
    for (const event of b.events) store.handle(event);
    store.flush();
    const { view } = store.getSnapshot();
    expect(view.run.question).toBe(`Q ${shown}`);
    expect(view.agents['gpt']?.text).toBe(shown);
    expect(view.approvals[0]?.toolName).toBe(`t${shown}`);
    expect(JSON.stringify(view, (key, value: unknown) => (key === 'callId' ? undefined : value))).not.toMatch(
      /\\u001b|[\x80-\x9f\u202e]/,
    );
    store.key({ input: 'y' });
    expect(onApproval).toHaveBeenCalledWith('gpt', callId, true);

    b.emit({ type: 'tool.call.finished', ...call, result: nasty, isError: false, durationMs: 1 });
    b.emit({ type: 'presentation.started', agentId: 'gpt', mode: 'present' });
    b.emit({
      type: 'presentation.finished',
      agentId: 'gpt',
      label: 'agent1.1',
      content: nasty,
      fallback: false,
    });
    for (const event of b.events.slice(-3)) store.handle(event);
    const screen = renderFinalScreen(store.current().view, 200, 0);
    expect(screen).toContain(shown);
    for (const raw of ['\x1b]', '\x1b[2J', '\x1b[31mFAKE', '\u009b', '\u202e', 'a\rb']) {
      expect(screen).not.toContain(raw);
    }
  });

  it('closes with an empty snapshot and ignores later events', () => {
    const store = new LiveViewStore();
    store.startClock(5);
    const b = threeAgentRun('start');
    for (const event of b.events) store.handle(event);
    store.close();
    expect(store.getSnapshot()).toMatchObject({ closed: true });
    expect(store.getSnapshot().view.run.agents).toHaveLength(3);
    store.handle(b.events[0]!);
    store.key({ input: 'q' });
    expect(store.getSnapshot().view.eventCount).toBe(b.events.length);
    expect(store.getSnapshot().ui.cancelRequested).toBe(false);
  });
});
