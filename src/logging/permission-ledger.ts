import { appendFileSync } from 'node:fs';
import type { RunEventOf } from '../types/events.js';

/** The audit ledger's file in a run's log folder. */
export const PERMISSIONS_LEDGER = 'permissions.jsonl';

type Decided = RunEventOf<'tool.permission.decided'>;
type StopDecided = RunEventOf<'hook.stop.decided'>;

/**
 * One line of `permissions.jsonl` (docs/permissions.md): when, which agent, which call, what was
 * decided, who decided, and the rule that matched — from a `tool.permission.decided` event, whose
 * arguments the run's scrubber has already masked.
 */
export interface LedgerEntry {
  time: string;
  run_id: string;
  seq: number;
  agent: string;
  phase: string;
  call_id: string;
  tool: string;
  arguments: unknown;
  decision: 'allow' | 'deny';
  by: string;
  rule: { label: string; index: number; scope: string; action: string; text: string } | null;
  /** The hook that decided or changed the input (docs/hooks.md). */
  hook: string | null;
  reason: string | null;
}

export function ledgerEntry(event: Decided): LedgerEntry {
  return {
    time: new Date(event.ts).toISOString(),
    run_id: event.runId,
    seq: event.seq,
    agent: event.agentId,
    phase: event.phase,
    call_id: event.callId,
    tool: event.toolName,
    arguments: event.arguments,
    decision: event.decision,
    by: event.by,
    rule: event.rule ?? null,
    hook: event.hook ?? null,
    reason: event.reason ?? null,
  };
}

/**
 * One line of `permissions.jsonl` for a `Stop` hook's `block` (docs/hooks.md): not a tool call, so
 * named by its `event`; `obeyed` says whether the run went on.
 */
export interface StopLedgerEntry {
  time: string;
  run_id: string;
  seq: number;
  event: 'Stop';
  decision: 'block';
  obeyed: boolean;
  continuation: number;
  by: 'hook';
  hook: string;
  reason: string;
}

export function stopLedgerEntry(event: StopDecided): StopLedgerEntry {
  return {
    time: new Date(event.ts).toISOString(),
    run_id: event.runId,
    seq: event.seq,
    event: 'Stop',
    decision: 'block',
    obeyed: event.obeyed,
    continuation: event.continuation,
    by: 'hook',
    hook: event.hook,
    reason: event.reason,
  };
}

/**
 * Appends each decision as one JSON line the moment it is made — synchronously, so a crash never
 * loses a decision that was acted on. The file exists only once a first decision is made.
 */
export class PermissionLedger {
  constructor(
    readonly file: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  record(event: Decided | StopDecided): void {
    const entry = event.type === 'hook.stop.decided' ? stopLedgerEntry(event) : ledgerEntry(event);
    try {
      appendFileSync(this.file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    } catch (error) {
      this.onError(error);
    }
  }
}
