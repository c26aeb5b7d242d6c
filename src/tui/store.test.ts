import { describe, expect, it, vi } from 'vitest';
import { AGENTS, eventBuilder, threeAgentRun } from './fixtures.test-support.js';
import { LiveViewStore } from './store.js';

describe('LiveViewStore', () => {
  it('reduces every event but publishes thousands of deltas in a few batched snapshots', async () => {
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
    await new Promise((resolve) => setTimeout(resolve, 60));
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
