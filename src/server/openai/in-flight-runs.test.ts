import { describe, expect, it } from 'vitest';
import type { PreparedRun } from '../../app/index.js';
import type { RunTermination } from '../../logging/index.js';
import { CancelledError } from '../../types/errors.js';
import { InFlightRuns, SHUTDOWN_REASON } from './in-flight-runs.js';

/** A run handle that records how its logs were closed, and when (against `order`). */
function recordingRun(order: string[], name: string) {
  const terminations: RunTermination[] = [];
  const run = {
    terminateSync: (outcome: RunTermination) => {
      terminations.push(outcome);
      order.push(`${name} logs closed`);
    },
  } as unknown as PreparedRun;
  return { run, terminations };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('InFlightRuns', () => {
  it('stop() cancels every run and waiting request with the shutdown reason; a client leaving cancels only its own', () => {
    const runs = new InFlightRuns();
    const client = new AbortController();
    const first = runs.begin(client.signal);
    const second = runs.begin(new AbortController().signal);
    client.abort(new Error('client left'));
    expect([first.signal.aborted, second.signal.aborted, runs.stopped]).toEqual([true, false, false]);

    expect(runs.stop()).toBe(2);
    expect(runs.stopped).toBe(true);
    expect(second.signal.reason).toBeInstanceOf(CancelledError);
    expect((second.signal.reason as Error).message).toBe(SHUTDOWN_REASON);
    expect(first.forced.aborted).toBe(false);
  });

  it('idle() resolves once the last run has ended, not before', async () => {
    const runs = new InFlightRuns();
    const a = runs.begin(new AbortController().signal);
    const b = runs.begin(new AbortController().signal);
    let idle = false;
    void runs.idle().then(() => (idle = true));
    runs.stop();
    a.end();
    a.end();
    await settle();
    expect([idle, runs.size]).toEqual([false, 1]);
    b.end();
    await settle();
    expect([idle, runs.size]).toEqual([true, 0]);
  });

  it('force() closes the logs of every run still in flight before it tells their requests to answer', () => {
    const runs = new InFlightRuns();
    const order: string[] = [];
    const held = recordingRun(order, 'held');
    const over = recordingRun(order, 'over');
    const flight = runs.begin(new AbortController().signal);
    flight.attach(held.run);
    const ended = runs.begin(new AbortController().signal);
    ended.attach(over.run);
    ended.end();
    runs.begin(new AbortController().signal); // still waiting for a slot: no run, no logs
    flight.forced.addEventListener('abort', () => order.push('answered'));

    runs.stop();
    expect(runs.force()).toBe(2);
    expect(order).toEqual(['held logs closed', 'answered']);
    expect(held.terminations).toEqual([
      expect.objectContaining({
        status: 'cancelled',
        exitCode: 130,
        error: expect.objectContaining({ code: 'cancelled' }),
      }),
    ]);
    expect(over.terminations).toEqual([]);
  });

  it('holds a thousand requests in flight without a "possible memory leak" warning, and lets them go', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const runs = new InFlightRuns();
      const flights = Array.from({ length: 1000 }, () => runs.begin(new AbortController().signal));
      // Each run waits on the server's signals the way a streamed answer does.
      for (const flight of flights) flight.forced.addEventListener('abort', () => {});
      await settle();
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
      for (const flight of flights) flight.end();
      expect(runs.size).toBe(0);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
