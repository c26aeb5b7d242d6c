import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { RunEvent, RunEventInput } from '../types/events.js';
import {
  NO_APPROVER_REASON,
  approvalQuestion,
  createApprovalPrompt,
  type ApprovalPromptOptions,
} from './approval-prompt.js';
import { waitUntil } from '../../test/support/wait.js';

let seq = 0;
const ev = (input: RunEventInput): RunEvent => ({ ...input, runId: 'r', seq: seq++, ts: 0 }) as RunEvent;

const requested = (agentId: string, callId: string, toolName = 'write_file', args: unknown = { path: 'a' }) =>
  ev({
    type: 'tool.approval.requested',
    agentId,
    phase: 'coordination',
    callId,
    toolName,
    arguments: args,
  });

/** A stand-in for PreparedRun.respondToApproval that records its answers. */
function recordingRun() {
  const answers: [string, string, { approved: boolean; reason?: string; by?: string }][] = [];
  return {
    answers,
    respondToApproval: vi.fn(
      (agentId: string, callId: string, decision: { approved: boolean; reason?: string; by?: string }) => {
        answers.push([agentId, callId, decision]);
        return true;
      },
    ),
  };
}

/** A fake terminal: `input` claims to be a TTY; `output` collects what is written. */
function fakeTerminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString()));
  return { input, output, written: () => written };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

function setup(options: Partial<ApprovalPromptOptions> = {}) {
  const run = recordingRun();
  const terminal = fakeTerminal();
  const warn = vi.fn();
  const prompt = createApprovalPrompt(run, { terminal, warn, ...options });
  return { run, terminal, warn, prompt };
}

describe('approvalQuestion', () => {
  it('names the agent, the tool and its arguments on one line', () => {
    expect(approvalQuestion({ agentId: 'gpt', toolName: 'write_file', arguments: { path: 'a.txt' } })).toBe(
      'Allow gpt to run write_file {"path":"a.txt"}? [y/N] ',
    );
    const long = approvalQuestion({ agentId: 'gpt', toolName: 't', arguments: { text: 'x\n'.repeat(200) } });
    expect(long).not.toContain('\n');
    expect(long.length).toBeLessThan(140);
  });

  it("shows the model's terminal controls escaped: in the tool name and in the arguments", () => {
    const question = approvalQuestion({
      agentId: 'gpt',
      toolName: 'x\x1b]0;PWNED\x07',
      arguments: { path: '\u202Etxt.exe', c1: '\u009b2J', esc: '\x1b[2J' },
    });
    expect(question).toBe(
      'Allow gpt to run x␛]0;PWNED␇ {"path":"\\u202Etxt.exe","c1":"\\u009B2J","esc":"\\u001b[2J"}? [y/N] ',
    );
    // eslint-disable-next-line no-control-regex
    expect(question).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202a-\u202e]/);
  });
});

describe('createApprovalPrompt on a terminal', () => {
  it('asks one question at a time, queueing the others, and answers each', async () => {
    const { run, terminal, warn, prompt } = setup();
    prompt.handle(requested('gpt', 'c1'));
    prompt.handle(requested('claude', 'c2', 'fetch', { url: 'https://x' }));
    await waitUntil(() => terminal.written().includes('?'));
    expect(terminal.written()).toBe('Allow gpt to run write_file {"path":"a"}? [y/N] ');

    terminal.input.write('y\n');
    await waitUntil(() => run.answers.length === 1);
    expect(run.answers[0]).toEqual(['gpt', 'c1', { approved: true, by: 'terminal' }]);
    await waitUntil(() => terminal.written().includes('Allow claude'));
    expect(terminal.written()).toContain('Allow claude to run fetch {"url":"https://x"}? [y/N] ');

    // Anything but y/yes denies (the default is no).
    terminal.input.write('\n');
    await waitUntil(() => run.answers.length === 2);
    expect(run.answers[1]).toEqual([
      'claude',
      'c2',
      { approved: false, reason: 'denied by the user', by: 'terminal' },
    ]);

    prompt.handle(requested('gpt', 'c3'));
    await waitUntil(() => terminal.written().split('Allow').length === 4);
    terminal.input.write(' YES \n');
    await waitUntil(() => run.answers.length === 3);
    expect(run.answers[2]).toEqual(['gpt', 'c3', { approved: true, by: 'terminal' }]);
    expect(warn).not.toHaveBeenCalled();
    prompt.close();
  });

  it('drops requests that were resolved elsewhere or whose turn ended, asked or queued', async () => {
    const { run, terminal, prompt } = setup();
    prompt.handle(requested('gpt', 'c1'));
    prompt.handle(requested('claude', 'c2'));
    prompt.handle(requested('gemini', 'c3'));
    await waitUntil(() => terminal.written().includes('Allow gpt'));
    // The question being asked is resolved elsewhere: the next one is asked.
    prompt.handle(
      ev({
        type: 'tool.approval.resolved',
        agentId: 'gpt',
        callId: 'c1',
        toolName: 'write_file',
        approved: true,
      }),
    );
    await waitUntil(() => terminal.written().includes('Allow claude'));
    // claude's turn ends while its call is asked; gemini's queued call is gone with its restart.
    prompt.handle(ev({ type: 'agent.turn.restarted', agentId: 'gemini', reason: 'new answer' }));
    prompt.handle(
      ev({
        type: 'agent.turn.finished',
        agentId: 'claude',
        turn: 1,
        outcome: 'aborted',
        durationMs: 1,
        consecutiveFailures: 0,
      }),
    );
    await tick();
    expect(terminal.written()).not.toContain('Allow gemini');
    terminal.input.write('y\n');
    await tick();
    expect(run.answers).toEqual([]);

    // A new request is asked as usual.
    prompt.handle(requested('gpt', 'c4'));
    await waitUntil(() =>
      terminal.written().includes('Allow gpt to run write_file {"path":"a"}? [y/N] \nAllow'),
    );
    terminal.input.write('n\n');
    await waitUntil(() => run.answers.length === 1);
    expect(run.answers[0]).toEqual([
      'gpt',
      'c4',
      { approved: false, reason: 'denied by the user', by: 'terminal' },
    ]);
    prompt.close();
  });

  it('stops asking when the run finishes or the view closes', async () => {
    const { run, terminal, prompt } = setup();
    prompt.handle(requested('gpt', 'c1'));
    prompt.handle(requested('gpt', 'c2'));
    await waitUntil(() => terminal.written().includes('Allow gpt'));
    prompt.handle(
      ev({
        type: 'run.finished',
        status: 'cancelled',
        exitCode: 130,
        winnerId: null,
        finalAnswer: null,
        durationMs: 1,
        usage: {},
        costUsd: {},
      }),
    );
    terminal.input.write('y\n');
    await tick();
    prompt.handle(requested('gpt', 'c3'));
    prompt.close();
    await tick();
    expect(run.answers).toEqual([]);
    expect(terminal.written().split('Allow')).toHaveLength(2);
  });

  it('Ctrl-C at a question asks to cancel the run (a terminal readline reads it as a key)', async () => {
    const onInterrupt = vi.fn();
    const { run, terminal, prompt } = setup({ onInterrupt });
    Object.assign(terminal.output, { isTTY: true, columns: 80 });
    prompt.handle(requested('gpt', 'c1'));
    await waitUntil(() => terminal.written().includes('Allow gpt'));
    terminal.input.write('\u0003');
    await waitUntil(() => onInterrupt.mock.calls.length === 1);
    expect(run.answers).toEqual([]);
    prompt.close();
  });

  it('denies the rest when the input ends (Ctrl-D), with one warning', async () => {
    const { run, terminal, warn, prompt } = setup();
    prompt.handle(requested('gpt', 'c1'));
    await waitUntil(() => terminal.written().includes('Allow gpt'));
    terminal.input.end();
    await waitUntil(() => run.answers.length === 1);
    prompt.handle(requested('gpt', 'c2'));
    expect(run.answers).toEqual([
      ['gpt', 'c1', { approved: false, reason: NO_APPROVER_REASON, by: 'none' }],
      ['gpt', 'c2', { approved: false, reason: NO_APPROVER_REASON, by: 'none' }],
    ]);
    expect(warn).toHaveBeenCalledTimes(1);
  });
});

describe('createApprovalPrompt without a terminal', () => {
  const expectDenials = (run: ReturnType<typeof recordingRun>, warn: ReturnType<typeof vi.fn>) => {
    expect(run.answers).toEqual([
      ['gpt', 'c1', { approved: false, reason: NO_APPROVER_REASON, by: 'none' }],
      ['claude', 'c2', { approved: false, reason: NO_APPROVER_REASON, by: 'none' }],
    ]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toBe(`massgen: warning: tool call denied: ${NO_APPROVER_REASON}\n`);
  };

  it('denies each request at once when stdin is not a TTY (pipes, CI), warning once', () => {
    const run = recordingRun();
    const warn = vi.fn();
    const terminal = fakeTerminal();
    terminal.input.isTTY = false;
    const prompt = createApprovalPrompt(run, { terminal, warn });
    prompt.handle(requested('gpt', 'c1'));
    prompt.handle(requested('claude', 'c2'));
    expectDenials(run, warn);
    expect(terminal.written()).toBe('');
  });

  it('denies at once with no terminal at all, and with --automation even on a terminal', () => {
    for (const options of [{}, { terminal: fakeTerminal(), automation: true }]) {
      const run = recordingRun();
      const warn = vi.fn();
      const prompt = createApprovalPrompt(run, { ...options, warn });
      prompt.handle(requested('gpt', 'c1'));
      prompt.handle(requested('claude', 'c2'));
      expectDenials(run, warn);
    }
  });

  it('gives a reason that says how to fix it', () => {
    expect(NO_APPROVER_REASON).toBe(
      'no one can approve tool calls here (auto_approve is false and there is no terminal); set orchestrator.auto_approve: true',
    );
  });
});
