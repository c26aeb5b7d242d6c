import { describe, expect, it } from 'vitest';
import { CancelledError } from '../types/errors.js';
import type { RunEvent } from '../types/events.js';
import { notRunResult } from '../types/run-result.js';
import type { RunView } from './run-view.js';
import { resultOfFailedStream, showRun } from './show-run.js';

function events(log: string[]): AsyncGenerator<RunEvent> {
  return (async function* () {
    try {
      for (let seq = 0; seq < 3; seq++) yield { type: 'run.note', seq } as unknown as RunEvent;
    } finally {
      // The run is cancelled when its consumer leaves: the generator's return runs this.
      log.push('stream closed');
    }
  })();
}

/** As the real view: the live view owns the terminal until it has finished, then `live` is false. */
function view(log: string[], live: boolean, throwAt: number): RunView {
  let seen = 0;
  let owned = live;
  return {
    get live() {
      return owned;
    },
    ready: Promise.resolve(),
    handle: () => {
      if (++seen === throwAt) throw new Error('the view broke');
      log.push(`event ${seen}`);
    },
    finish: async () => {
      owned = false;
      log.push('view closed');
    },
  };
}

describe('showRun', () => {
  it('under the live view, says the error that ended the stream after the view has closed', async () => {
    const log: string[] = [];
    const failure = await showRun(events(log), view(log, true, 2), {
      afterView: async () => void log.push('after view'),
      sayError: (error) => log.push(`said: ${(error as Error).message}`),
    });
    expect((failure?.error as Error).message).toBe('the view broke');
    expect(log).toEqual(['event 1', 'stream closed', 'view closed', 'after view', 'said: the view broke']);
  });

  it('without a live view, says it at once, then closes the view', async () => {
    const log: string[] = [];
    await showRun(events(log), view(log, false, 1), {
      afterView: async () => void log.push('after view'),
      sayError: (error) => log.push(`said: ${(error as Error).message}`),
    });
    expect(log).toEqual(['stream closed', 'said: the view broke', 'view closed', 'after view']);
  });

  it('returns null and says nothing for a stream that ran to its end', async () => {
    const log: string[] = [];
    const seen: string[] = [];
    const failure = await showRun(events(log), view(log, true, 0), {
      beforeView: (event) => seen.push(event.type),
      afterView: async () => undefined,
      sayError: () => log.push('said'),
    });
    expect(failure).toBeNull();
    expect(seen).toHaveLength(3);
    expect(log).not.toContain('said');
  });
});

describe('resultOfFailedStream', () => {
  const cancelled = notRunResult('q', 'r1', 'the consumer left');

  it('turns the cancel the consumer caused into the failure that caused it: exit 2, not 130', () => {
    const result = resultOfFailedStream(cancelled, new Error('Unexpected module status 0'));
    expect(result).toMatchObject({
      status: 'failed',
      exitCode: 2,
      error: { code: 'run_failed', message: 'Unexpected module status 0' },
    });
  });

  it('keeps a real cancel a cancel', () => {
    expect(resultOfFailedStream(cancelled, new CancelledError('interrupted'))).toBe(cancelled);
  });
});
