import { Console } from 'node:console';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PreparedRun } from '../app/index.js';
import type { RunEvent, RunEventInput } from '../types/events.js';
import { NO_APPROVER_REASON } from './approval-prompt.js';
import { createRunView, type RunViewIo, type RunViewOptions } from './run-view.js';
import { waitUntil } from '../../test/support/wait.js';

type Decision = { approved: boolean; reason?: string; by?: string };

/** A PreparedRun with just what the views read, and a recording `respondToApproval`. */
function fakeRun(autoApprove: boolean) {
  const answers: [string, string, Decision][] = [];
  const prepared = {
    config: {
      orchestrator: { auto_approve: autoApprove },
      ui: { display_type: 'rich_terminal' },
      agents: [],
    },
    question: 'Q',
    logDir: null,
    statusPath: null,
    respondToApproval: (agentId: string, callId: string, decision: Decision) => {
      answers.push([agentId, callId, decision]);
      return true;
    },
  } as unknown as PreparedRun;
  return { prepared, answers };
}

let seq = 0;
const ev = (input: RunEventInput): RunEvent =>
  ({ ...input, runId: 'r', seq: seq++, ts: 1000 + seq }) as RunEvent;

const events = {
  started: () =>
    ev({
      type: 'run.started',
      question: 'Q',
      agents: [{ agentId: 'gpt', anonymousId: 'agent1', backendType: 'openai', model: 'gpt-4o' }],
      settings: {},
    }),
  requested: (callId: string) =>
    ev({
      type: 'tool.approval.requested',
      agentId: 'gpt',
      phase: 'coordination',
      callId,
      toolName: 'write_file',
      arguments: { path: 'a.txt' },
    }),
};

function plainIo(terminal?: RunViewIo['terminal']) {
  let stdout = '';
  let stderr = '';
  const io: RunViewIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { TERM: 'xterm-256color' },
    ...(terminal ? { terminal } : {}),
  };
  return { io, stdout: () => stdout, stderr: () => stderr };
}

const options = (overrides: Partial<RunViewOptions> = {}): RunViewOptions => ({
  automation: false,
  display: false,
  debug: false,
  ...overrides,
});

const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));
describe('createRunView: tool approvals in the plain views', () => {
  it('asks on the terminal and answers the run', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
    let asked = '';
    output.on('data', (chunk: Buffer) => (asked += chunk.toString()));
    const { io, stdout } = plainIo({
      stdin: input as unknown as NodeJS.ReadStream,
      stdout: output as unknown as NodeJS.WriteStream,
    });
    const { prepared, answers } = fakeRun(false);
    const view = createRunView(io, options(), prepared);
    expect(view.live).toBe(false);
    view.handle(events.started());
    view.handle(events.requested('c1'));
    expect(stdout()).toContain('[gpt] ? write_file is waiting for approval');
    await waitUntil(() => asked.includes('Allow gpt to run write_file {"path":"a.txt"}? [y/N] '));
    input.write('y\r');
    await waitUntil(() => answers.length === 1);
    expect(answers[0]).toEqual(['gpt', 'c1', { approved: true, by: 'terminal' }]);
    await view.finish();
  });

  it('denies at once, with one warning on stderr, when there is no terminal or with --automation', () => {
    const tty = () => ({
      stdin: Object.assign(new PassThrough(), { isTTY: true }) as unknown as NodeJS.ReadStream,
      stdout: new PassThrough() as unknown as NodeJS.WriteStream,
    });
    for (const [terminal, opts] of [
      [undefined, options()],
      [undefined, options({ debug: true })],
      [tty(), options({ automation: true })],
    ] as const) {
      const { io, stderr } = plainIo(terminal);
      const { prepared, answers } = fakeRun(false);
      const view = createRunView(io, opts, prepared);
      view.handle(events.started());
      view.handle(events.requested('c1'));
      view.handle(events.requested('c2'));
      expect(answers).toEqual([
        ['gpt', 'c1', { approved: false, reason: NO_APPROVER_REASON, by: 'none' }],
        ['gpt', 'c2', { approved: false, reason: NO_APPROVER_REASON, by: 'none' }],
      ]);
      expect(
        stderr().match(/massgen: warning: tool call denied: no one can approve tool calls here/g),
      ).toHaveLength(1);
    }
  });

  it('leaves approvals alone with auto_approve: true', () => {
    const { io, stderr } = plainIo();
    const { prepared, answers } = fakeRun(true);
    const view = createRunView(io, options(), prepared);
    view.handle(events.started());
    view.handle(events.requested('c1'));
    expect(answers).toEqual([]);
    expect(stderr()).toBe('');
  });
});

/** A terminal's output for the live view. */
class FakeStdout extends EventEmitter {
  isTTY = true;
  columns = 100;
  rows = 30;
  write(_chunk: string, callback?: () => void): boolean {
    callback?.();
    return true;
  }
}

/** A terminal's input: `press` delivers keys the way a TTY does. */
class FakeStdin extends EventEmitter {
  isTTY = true;
  setRawMode = vi.fn(() => this);
  private queue: string[] = [];
  setEncoding = () => this;
  ref = () => this;
  unref = () => this;
  resume = () => this;
  pause = () => this;
  read(): string | null {
    return this.queue.shift() ?? null;
  }
  press(data: string): void {
    this.queue.push(data);
    this.emit('readable');
  }
}

describe('createRunView: tool approvals in the live view', () => {
  // Ink routes console output above its frame by building a `console.Console`, which vitest's console lacks.
  const original = (console as { Console?: unknown }).Console;
  beforeAll(() => {
    (console as { Console?: unknown }).Console = Console;
  });
  afterAll(() => {
    (console as { Console?: unknown }).Console = original;
  });

  function liveView(stdinIsTTY = true) {
    const stdin = new FakeStdin();
    stdin.isTTY = stdinIsTTY;
    const { io, stderr } = plainIo({
      stdin: stdin as unknown as NodeJS.ReadStream,
      stdout: new FakeStdout() as unknown as NodeJS.WriteStream,
    });
    const run = fakeRun(false);
    const view = createRunView(io, options({ display: true }), run.prepared);
    return { view, stdin, stderr, ...run };
  }

  it('y approves and n denies through respondToApproval', async () => {
    const { view, stdin, answers } = liveView();
    expect(view.live).toBe(true);
    await view.ready;
    view.handle(events.started());
    view.handle(events.requested('c1'));
    view.handle(events.requested('c2'));
    await tick(80);
    stdin.press('n');
    await tick();
    stdin.press('y');
    await tick();
    expect(answers).toEqual([
      ['gpt', 'c1', { approved: false, reason: 'denied by the user', by: 'terminal' }],
      ['gpt', 'c2', { approved: true, by: 'terminal' }],
    ]);
    await view.finish();
  });

  it('denies at once, quietly, when no keys can reach the live view', async () => {
    const { view, answers, stderr } = liveView(false);
    expect(view.live).toBe(true);
    view.handle(events.started());
    view.handle(events.requested('c1'));
    expect(answers).toEqual([['gpt', 'c1', { approved: false, reason: NO_APPROVER_REASON, by: 'none' }]]);
    expect(stderr()).toBe('');
    await view.finish();
  });
});

describe('createRunView: --review and the permission rules', () => {
  const proposed = () =>
    ev({
      type: 'changes.proposed',
      agentId: 'gpt',
      reviewId: 'changes-1',
      contextPath: '/p',
      isolation: 'worktree',
      branch: 'massgen/r/gpt',
      files: [{ path: 'a.ts', status: 'added', binary: false, additions: 1, deletions: 0, hunks: [] }],
      diffFile: null,
      awaitingReview: true,
    });

  it('asks about the changes on the terminal, in the plain view even where the live view would run', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
    let shown = '';
    output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
    const { io } = plainIo({
      stdin: input as unknown as NodeJS.ReadStream,
      stdout: output as unknown as NodeJS.WriteStream,
    });
    const reviews: unknown[] = [];
    const { prepared } = fakeRun(true);
    Object.assign(prepared, {
      respondToReview: (id: string, files: unknown, by: string) => (reviews.push([id, files, by]), true),
    });
    const view = createRunView(io, options({ display: true, review: true }), prepared);
    expect(view.live).toBe(false);
    view.handle(events.started());
    view.handle(proposed());
    await waitUntil(() => shown.includes('Apply a.ts?'));
    input.write('y\r');
    await waitUntil(() => reviews.length === 1);
    expect(reviews[0]).toEqual(['changes-1', ['a.ts'], 'terminal']);
    await view.finish();
  });

  it('holds calls for an ask rule even with auto_approve: true', () => {
    const { io, stderr } = plainIo();
    const { prepared, answers } = fakeRun(true);
    Object.assign(prepared.config, { permissions: [{ ask: 'write_file' }] });
    const view = createRunView(io, options(), prepared);
    view.handle(events.started());
    view.handle(events.requested('c1'));
    // No terminal and no log folder: nobody can answer.
    expect(answers).toEqual([['gpt', 'c1', { approved: false, reason: NO_APPROVER_REASON, by: 'none' }]]);
    expect(stderr()).toContain('tool call denied');
  });
});
