import { describe, expect, it } from 'vitest';
import { RunSlots, ServerBusyError } from './run-slots.js';

/** Lets every promise reaction and queued microtask run (p-queue frees slots in microtasks). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('RunSlots', () => {
  it('keeps a slot taken until it is released, even when its client leaves while the run ends', async () => {
    const slots = new RunSlots(1, 1);
    const client = new AbortController();
    const release = await slots.acquire(client.signal);
    client.abort(new Error('client left'));
    await settle();
    expect(slots.running).toBe(1);

    let admitted = false;
    const next = slots.acquire(new AbortController().signal).then((give) => {
      admitted = true;
      return give;
    });
    await settle();
    expect(admitted).toBe(false);
    release();
    (await next)();
    expect(admitted).toBe(true);
  });

  it('takes a waiting request out of the queue when its client leaves', async () => {
    const slots = new RunSlots(1, 1);
    const release = await slots.acquire(new AbortController().signal);
    const client = new AbortController();
    const waiting = slots.acquire(client.signal);
    expect(slots.waiting).toBe(1);
    client.abort(new Error('client left'));
    await expect(waiting).rejects.toThrow('client left');
    expect(slots.waiting).toBe(0);
    release();
    await settle();
    expect(slots.running).toBe(0);
  });

  it('refuses at once when every slot and every queue place is taken', async () => {
    const slots = new RunSlots(1, 0);
    const release = await slots.acquire(new AbortController().signal);
    expect(slots.full).toBe(true);
    await expect(slots.acquire(new AbortController().signal)).rejects.toBeInstanceOf(ServerBusyError);
    release();
  });
});
