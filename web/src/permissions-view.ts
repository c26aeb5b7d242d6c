import type { RunEvent, RunEventOf } from '../../src/types/events.js';

/**
 * The permission engine and the change review as the page shows them (docs/permissions.md): the
 * audit ledger (every `tool.permission.decided`, like `permissions.jsonl`), the rule behind each held
 * call, and the winner's proposed changes with what became of them. A pure reducer, so a logged run
 * replays it.
 */

export interface LedgerRow {
  seq: number;
  ts: number;
  agentId: string;
  toolName: string;
  arguments: string;
  decision: 'allow' | 'deny';
  by: string;
  /** `permissions[0]: deny write_file path=secrets/**`, or null when no rule matched. */
  rule: string | null;
  reason: string | null;
}

export type ProposedFile = RunEventOf<'changes.proposed'>['files'][number];

export interface ReviewView {
  reviewId: string;
  agentId: string;
  contextPath: string;
  isolation: 'worktree' | 'copy';
  branch: string | null;
  files: ProposedFile[];
  diffFile: string | null;
  /** True while the run waits for a choice here. */
  awaitingReview: boolean;
  /** Set once applied. */
  outcome: Omit<RunEventOf<'changes.applied'>, 'runId' | 'seq' | 'ts' | 'type'> | null;
}

export interface PermissionsView {
  ledger: LedgerRow[];
  /** The rule that holds each waiting call, by `agentId/callId`. */
  heldBy: Record<string, string>;
  reviews: ReviewView[];
}

export const initialPermissionsView = (): PermissionsView => ({ ledger: [], heldBy: {}, reviews: [] });

export const heldKey = (agentId: string, callId: string) => `${agentId}/${callId}`;

const text = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

export function reducePermissions(view: PermissionsView, event: RunEvent): PermissionsView {
  switch (event.type) {
    case 'tool.permission.decided':
      return {
        ...view,
        ledger: [
          ...view.ledger,
          {
            seq: event.seq,
            ts: event.ts,
            agentId: event.agentId,
            toolName: event.toolName,
            arguments: text(event.arguments),
            decision: event.decision,
            by: event.by,
            rule: event.rule ? `${event.rule.label}: ${event.rule.text}` : null,
            reason: event.reason ?? null,
          },
        ],
      };
    case 'tool.approval.requested':
      return event.rule
        ? {
            ...view,
            heldBy: {
              ...view.heldBy,
              [heldKey(event.agentId, event.callId)]: `${event.rule.label}: ${event.rule.text}`,
            },
          }
        : view;
    case 'changes.proposed':
      return {
        ...view,
        reviews: [
          ...view.reviews.filter((r) => r.reviewId !== event.reviewId),
          {
            reviewId: event.reviewId,
            agentId: event.agentId,
            contextPath: event.contextPath,
            isolation: event.isolation,
            branch: event.branch,
            files: event.files,
            diffFile: event.diffFile,
            awaitingReview: event.awaitingReview,
            outcome: null,
          },
        ],
      };
    case 'changes.applied': {
      const { runId: _r, seq: _s, ts: _t, type: _type, ...outcome } = event;
      return {
        ...view,
        reviews: view.reviews.map((r) =>
          r.reviewId === event.reviewId ? { ...r, awaitingReview: false, outcome } : r,
        ),
      };
    }
    case 'run.finished':
      return { ...view, heldBy: {}, reviews: view.reviews.map((r) => ({ ...r, awaitingReview: false })) };
    default:
      return view;
  }
}
