import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventInput } from '../../src/types/events.js';
import { heldKey } from './permissions-view.js';
import { replay } from './run-view.js';

let seq = 0;
const ev = (input: RunEventInput): RunEvent => ({ ...input, runId: 'r', seq: seq++, ts: 1000 }) as RunEvent;
const rule = {
  label: 'permissions[0]',
  index: 0,
  scope: 'team' as const,
  action: 'ask' as const,
  text: 'ask write_file',
};

describe('the permissions part of the run view', () => {
  it('keeps the ledger, the rule behind each held call, and each review with its outcome', () => {
    const view = replay([
      ev({
        type: 'tool.approval.requested',
        agentId: 'a',
        phase: 'coordination',
        callId: 'c1',
        toolName: 'write_file',
        arguments: { path: 'x' },
        rule,
      }),
      ev({
        type: 'tool.permission.decided',
        agentId: 'a',
        phase: 'coordination',
        callId: 'c1',
        toolName: 'write_file',
        arguments: { path: 'x' },
        decision: 'allow',
        by: 'web',
        rule,
      }),
      ev({
        type: 'changes.proposed',
        agentId: 'a',
        reviewId: 'changes-1',
        contextPath: '/p',
        isolation: 'copy',
        branch: null,
        files: [{ path: 'a.txt', status: 'added', binary: false, additions: 1, deletions: 0, hunks: [] }],
        diffFile: null,
        awaitingReview: true,
      }),
    ]);
    expect(view.permissions.heldBy[heldKey('a', 'c1')]).toBe('permissions[0]: ask write_file');
    expect(view.permissions.ledger).toEqual([
      {
        seq: 1,
        ts: 1000,
        agentId: 'a',
        toolName: 'write_file',
        arguments: '{"path":"x"}',
        decision: 'allow',
        by: 'web',
        rule: 'permissions[0]: ask write_file',
        reason: null,
      },
    ]);
    expect(view.permissions.reviews[0]).toMatchObject({
      reviewId: 'changes-1',
      awaitingReview: true,
      outcome: null,
    });
    const applied = replay([
      ev({
        type: 'changes.proposed',
        agentId: 'a',
        reviewId: 'changes-1',
        contextPath: '/p',
        isolation: 'copy',
        branch: null,
        files: [],
        diffFile: null,
        awaitingReview: true,
      }),
      ev({
        type: 'changes.applied',
        agentId: 'a',
        reviewId: 'changes-1',
        contextPath: '/p',
        by: 'web',
        applied: ['a.txt'],
        conflicts: [],
        failed: [],
        skipped: [],
      }),
    ]);
    expect(applied.permissions.reviews[0]).toMatchObject({
      awaitingReview: false,
      outcome: { by: 'web', applied: ['a.txt'] },
    });
  });
});
