import { Console } from 'node:console';
import { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { threeAgentRun } from './fixtures.test-support.js';
import { isLiveViewSupported } from './live-view-entry.js';
import { startLiveView } from './live-view.js';

/** A terminal's output: records what is written. */
class FakeStdout extends EventEmitter {
  isTTY = true;
  columns = 120;
  rows = 40;
  output = '';
  write(chunk: string, callback?: () => void): boolean {
    this.output += chunk;
    callback?.();
    return true;
  }
}

/** A terminal's input: `press` delivers keys the way a TTY does; raw mode calls are recorded. */
class FakeStdin extends EventEmitter {
  isTTY = true;
  raw = false;
  readonly setRawMode = vi.fn((on: boolean) => {
    this.raw = on;
    return this;
  });
  private queue: string[] = [];
  setEncoding(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  resume(): this {
    return this;
  }
  pause(): this {
    return this;
  }
  read(): string | null {
    return this.queue.shift() ?? null;
  }
  press(data: string): void {
    this.queue.push(data);
    this.emit('readable');
  }
}

function terminal() {
  const stdout = new FakeStdout();
  const stdin = new FakeStdin();
  return {
    stdout,
    stdin,
    streams: {
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
    },
  };
}

/** Under CI Ink writes only its last frame (is-in-ci), so the erase sequences differ. */
const inkThinksItIsCi =
  process.env.CI !== '0' &&
  process.env.CI !== 'false' &&
  ('CI' in process.env ||
    'CONTINUOUS_INTEGRATION' in process.env ||
    Object.keys(process.env).some((k) => k.startsWith('CI_')));

const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));
// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\u001B\[[0-9;?<>]*[A-Za-z]/g, '');

describe('startLiveView', () => {
  // Ink routes console output above its frame by building a `console.Console`, which vitest's console lacks.
  const original = (console as { Console?: unknown }).Console;
  beforeAll(() => {
    (console as { Console?: unknown }).Console = Console;
  });
  afterAll(() => {
    (console as { Console?: unknown }).Console = original;
  });

  it('renders the run, prints the final screen on finish, and leaves raw mode off', async () => {
    const { stdout, stdin, streams } = terminal();
    const onCancel = vi.fn();
    const view = startLiveView({ ...streams, onCancel });
    await view.ready;
    expect(stdin.raw).toBe(true);
    const run = threeAgentRun('finish');
    for (const event of run.events) view.handle(event);
    await tick(80);
    await view.finish();
    expect(stdin.raw).toBe(false);
    expect(stdin.setRawMode).toHaveBeenLastCalledWith(false);
    const output = plain(stdout.output);
    // The final screen comes last and stays: the winner, the whole answer, the summary.
    const finalScreen = output.slice(output.lastIndexOf('★ Final answer'));
    expect(finalScreen).toContain('★ Final answer · claude · agent2.final');
    expect(finalScreen).toContain('Paris is the capital of France.');
    expect(finalScreen).toContain('It has been since 987.');
    expect(finalScreen).toContain('✔ Completed in');
    expect(finalScreen).toContain('total: 8400 in / 930 out tokens');
    expect(onCancel).not.toHaveBeenCalled();
    if (!inkThinksItIsCi) {
      // The live frame was erased (cursor back to column 1) before the final screen was written.
      const afterErase = plain(stdout.output.slice(stdout.output.lastIndexOf('\u001B[G')));
      expect(afterErase.match(/★ Final answer/g)).toHaveLength(1);
      expect(afterErase).toContain('✔ Completed in');
    }

    // Finishing twice is harmless, and later events are ignored.
    const length = stdout.output.length;
    view.handle(run.events[0]!);
    await view.finish();
    expect(stdout.output.length).toBe(length);
  });

  it('calls onCancel once for q, then releases raw mode so a further Ctrl-C is a real SIGINT', async () => {
    const { stdin, streams } = terminal();
    const onCancel = vi.fn();
    const view = startLiveView({ ...streams, onCancel });
    await view.ready;
    for (const event of threeAgentRun('streaming').events) view.handle(event);
    await tick();
    stdin.press('q');
    await tick();
    stdin.press('\u0003');
    await tick();
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(stdin.raw).toBe(false);
    await view.finish();
    expect(stdin.raw).toBe(false);
  });

  it('calls onCancel for Ctrl-C', async () => {
    const { stdin, streams } = terminal();
    const onCancel = vi.fn();
    const view = startLiveView({ ...streams, onCancel });
    await view.ready;
    await tick();
    stdin.press('\u0003');
    await tick();
    expect(onCancel).toHaveBeenCalledTimes(1);
    await view.finish();
  });

  it('works when stdin is not a terminal (no keys, no raw mode)', async () => {
    const { stdin, stdout, streams } = terminal();
    stdin.isTTY = false;
    const view = startLiveView({ ...streams, onCancel: vi.fn() });
    for (const event of threeAgentRun('finish').events) view.handle(event);
    await view.finish();
    expect(stdin.setRawMode).not.toHaveBeenCalled();
    expect(plain(stdout.output)).toContain('It has been since 987.');
  });
});

describe('isLiveViewSupported', () => {
  it('needs a terminal that is not dumb, outside CI', () => {
    expect(isLiveViewSupported({ isTTY: true }, { TERM: 'xterm-256color' })).toBe(true);
    expect(isLiveViewSupported({ isTTY: false }, {})).toBe(false);
    expect(isLiveViewSupported({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(isLiveViewSupported({ isTTY: true }, { CI: 'true' })).toBe(false);
    expect(isLiveViewSupported({ isTTY: true }, { CI: 'false' })).toBe(true);
  });
});
