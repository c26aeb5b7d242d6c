import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunEvent, RunEventInput } from '../types/events.js';
import type { ToolApprovalDecision } from '../types/tool.js';
import { createFileApprovals, createFileReviews } from './file-handshake.js';
import { ReviewDesk } from './review-desk.js';
import type { PreparedRun } from './run-massgen.js';

const dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const logDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'massgen-handshake-'));
  dirs.push(dir);
  return dir;
};

let seq = 0;
const ev = (input: RunEventInput): RunEvent =>
  ({ ...input, runId: 'r', seq: seq++, ts: Date.UTC(2025, 0, 1) }) as RunEvent;

/**
 * The handshake looks for the answer file on a timer: the tests move that clock (not the date), so
 * "it has looked" is a fact and not a guess about how busy the machine is.
 */
const fakeClock = () =>
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
/** The handshake's look interval (file-handshake.ts). */
const POLL_MS = 100;

const answer = (file: string, value: unknown) => {
  writeFileSync(`${file}.tmp`, JSON.stringify(value));
  renameSync(`${file}.tmp`, file);
};

function fakeRun(timeoutSeconds = 60) {
  const answers: [string, string, ToolApprovalDecision][] = [];
  const run = {
    config: {
      agents: [{ id: 'a', backend: { tool_timeout_seconds: timeoutSeconds } }],
      timeout_settings: { orchestrator_timeout_seconds: 0.2 },
    },
    respondToApproval: (agentId: string, callId: string, decision: ToolApprovalDecision) => {
      answers.push([agentId, callId, decision]);
      return true;
    },
  } as unknown as PreparedRun;
  return { run, answers };
}

const requested = (callId: string) =>
  ev({
    type: 'tool.approval.requested',
    agentId: 'a',
    phase: 'coordination',
    callId,
    toolName: 'write_file',
    arguments: { path: 'x.txt' },
    rule: { label: 'permissions[0]', index: 0, scope: 'team', action: 'ask', text: 'ask write_file' },
  });

describe('createFileApprovals', () => {
  it('writes the question, reads the answer written next to it, and says where it waits', async () => {
    fakeClock();
    const dir = logDir();
    const { run, answers } = fakeRun();
    const said: string[] = [];
    const approvals = createFileApprovals(run, dir, (text) => said.push(text));
    approvals.handle(requested('call/1'));
    const request = path.join(dir, 'approvals', 'a-call_1.request.json');
    expect(JSON.parse(readFileSync(request, 'utf8'))).toMatchObject({
      id: 'a-call_1',
      agent: 'a',
      tool: 'write_file',
      arguments: { path: 'x.txt' },
      rule: { label: 'permissions[0]' },
      asked_at: '2025-01-01T00:00:00.000Z',
      timeout_seconds: 60,
    });
    expect(said[0]).toContain(path.join(dir, 'approvals', 'a-call_1.answer.json'));
    // Not JSON yet (half written): read again later.
    writeFileSync(path.join(dir, 'approvals', 'a-call_1.answer.json'), '{"appro');
    await vi.advanceTimersByTimeAsync(2 * POLL_MS);
    expect(answers).toEqual([]);
    answer(path.join(dir, 'approvals', 'a-call_1.answer.json'), { approve: false, reason: 'not today' });
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(answers[0]).toEqual(['a', 'call/1', { approved: false, reason: 'not today', by: 'file' }]);
    approvals.close();
  });

  it('denies when nobody answers within the tool timeout, and stops waiting for calls answered elsewhere', async () => {
    fakeClock();
    const dir = logDir();
    const { run, answers } = fakeRun(0.05);
    const approvals = createFileApprovals(run, dir);
    approvals.handle(requested('c1'));
    await vi.advanceTimersByTimeAsync(49);
    expect(answers).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(answers[0]?.[2]).toEqual({
      approved: false,
      reason: 'nobody answered within 0.05s (tool_timeout_seconds)',
      by: 'timeout',
    });
    const slow = fakeRun(60);
    const other = createFileApprovals(slow.run, dir);
    other.handle(requested('c2'));
    other.handle(
      ev({
        type: 'tool.approval.resolved',
        agentId: 'a',
        callId: 'c2',
        toolName: 'write_file',
        approved: true,
      }),
    );
    answer(path.join(dir, 'approvals', 'a-c2.answer.json'), { approve: true });
    await vi.advanceTimersByTimeAsync(3 * POLL_MS);
    expect(slow.answers).toEqual([]);
  });
});

describe('createFileReviews with the ReviewDesk', () => {
  it('waits for the chosen files, and applies none when the time is up', async () => {
    const dir = logDir();
    const desk = new ReviewDesk('ask');
    const run = {
      config: { timeout_settings: { orchestrator_timeout_seconds: 60 } },
      respondToReview: (id: string, files: 'all' | 'none' | readonly string[], by?: string) =>
        desk.respond(id, files, by as 'file'),
    } as unknown as PreparedRun;
    const reviews = createFileReviews(run, dir);
    const decision = desk.reviewer.review(
      { reviewId: 'changes-1', contextPath: '/p', files: ['a.txt', 'b.txt'], agentId: 'a' },
      new AbortController().signal,
    );
    expect(desk.pending().map((r) => r.reviewId)).toEqual(['changes-1']);
    reviews.handle(
      ev({
        type: 'changes.proposed',
        agentId: 'a',
        reviewId: 'changes-1',
        contextPath: '/p',
        isolation: 'worktree',
        branch: 'massgen/r/a',
        files: ['a.txt', 'b.txt'].map((p) => ({
          path: p,
          status: 'modified' as const,
          binary: false,
          additions: 1,
          deletions: 1,
          hunks: [],
        })),
        diffFile: null,
        awaitingReview: true,
      }),
    );
    const request = JSON.parse(readFileSync(path.join(dir, 'reviews', 'changes-1.request.json'), 'utf8'));
    expect(request.files.map((f: { path: string }) => f.path)).toEqual(['a.txt', 'b.txt']);
    answer(path.join(dir, 'reviews', 'changes-1.answer.json'), { apply: ['b.txt', 'not-proposed.txt'] });
    expect(await decision).toEqual({ files: ['b.txt'], by: 'file' });

    const quick = new ReviewDesk('ask');
    const cancelled = new AbortController();
    const pending = quick.reviewer.review(
      { reviewId: 'x', contextPath: '/p', files: [], agentId: 'a' },
      cancelled.signal,
    );
    cancelled.abort();
    expect(await pending).toEqual({ files: 'none', by: 'cancelled' });
    expect(existsSync(path.join(dir, 'reviews', 'x.request.json'))).toBe(false);
  });

  it('answers at once without review: everything by default, or as --review=all|none says', async () => {
    const signal = new AbortController().signal;
    const request = { reviewId: 'r', contextPath: '/p', files: ['a'], agentId: 'a' };
    expect(await new ReviewDesk('apply').reviewer.review(request, signal)).toEqual({
      files: 'all',
      by: 'default',
    });
    expect(await new ReviewDesk('none').reviewer.review(request, signal)).toEqual({
      files: 'none',
      by: 'flag',
    });
    expect(new ReviewDesk('all').reviewer.awaitsReview).toBe(false);
    expect(new ReviewDesk('ask').reviewer.awaitsReview).toBe(true);
  });
});
