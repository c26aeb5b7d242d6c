import { describeChange } from '../types/change-kind.js';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RunEvent, RunEventOf } from '../types/events.js';
import { routeApprovalEvent } from './route-approval-event.js';
import type { PreparedRun } from './run-massgen.js';

/**
 * Answering a headless run through files in its log folder (docs/permissions.md): each question is
 * written as `<folder>/<id>.request.json`, and whoever wants to answer writes `<id>.answer.json` next
 * to it. Tool calls held for approval use `approvals/` — `{"approve": true}` or
 * `{"approve": false, "reason": "…"}` — and wait at most the agent's `tool_timeout_seconds`; reviews
 * of the winner's changes use `reviews/` — `{"apply": "all" | "none" | ["path", …]}` — and wait at
 * most the orchestrator timeout. Write the answer to another name and rename it into place, so it is
 * never read half-written (an answer that does not parse yet is read again on the next look).
 */

/** How often the answer files are looked for. */
const POLL_MS = 100;

/** Answers questions of one run through files; `handle` every event, `close` when the run is over. */
export interface FileAnswerer {
  handle(event: RunEvent): void;
  close(): void;
}

/** Ids from providers and agents may hold anything: one safe file-name segment. */
const safe = (text: string) =>
  text
    .replace(/[^A-Za-z0-9_.-]/g, '_')
    .replace(/^\.+/, '_')
    .slice(0, 80) || '_';

/** Writes JSON to `file` atomically (a temp file renamed into place). */
function writeJson(file: string, value: unknown): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

interface Wait<T> {
  answered: (value: T) => void;
  timedOut: () => void;
  parse: (value: unknown) => T | undefined;
}

/** Waits for `<dir>/<id>.answer.json`; calls `timedOut` after `timeoutMs`. Returns the cancel function. */
function awaitAnswer<T>(dir: string, id: string, timeoutMs: number, wait: Wait<T>): () => void {
  const answerFile = path.join(dir, `${id}.answer.json`);
  let done = false;
  const finish = () => {
    done = true;
    clearInterval(poll);
    clearTimeout(timer);
  };
  const poll = setInterval(() => {
    if (done || !existsSync(answerFile)) return;
    let value: T | undefined;
    try {
      value = wait.parse(JSON.parse(readFileSync(answerFile, 'utf8')));
    } catch {
      return; // Not whole yet, or not JSON: looked at again next time.
    }
    if (value === undefined) return;
    finish();
    wait.answered(value);
  }, POLL_MS);
  const timer = setTimeout(() => {
    if (done) return;
    finish();
    wait.timedOut();
  }, timeoutMs);
  return finish;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Held tool calls (`auto_approve: false`, `ask` rules) answered through `<log folder>/approvals/`. A call
 * answered elsewhere meanwhile (or whose turn ended) stops waiting.
 */
export function createFileApprovals(
  run: Pick<PreparedRun, 'respondToApproval' | 'config'>,
  logDir: string,
  /** Told where each question waits (the CLI prints it on stderr). */
  say?: (text: string) => void,
): FileAnswerer {
  const dir = path.join(logDir, 'approvals');
  const waiting = new Map<string, { agentId: string; cancel: () => void }>();
  const used = new Set<string>();
  const key = (agentId: string, callId: string) => `${agentId}\u0000${callId}`;
  const timeoutOf = (agentId: string) =>
    (run.config.agents.find((a) => a.id === agentId)?.backend.tool_timeout_seconds ?? 60) * 1000;

  const ask = (event: RunEventOf<'tool.approval.requested'>) => {
    let id = safe(`${event.agentId}-${event.callId}`);
    for (let n = 2; used.has(id); n++) id = safe(`${event.agentId}-${event.callId}-${n}`);
    used.add(id);
    const timeoutMs = timeoutOf(event.agentId);
    mkdirSync(dir, { recursive: true });
    writeJson(path.join(dir, `${id}.request.json`), {
      id,
      agent: event.agentId,
      phase: event.phase,
      call_id: event.callId,
      tool: event.toolName,
      arguments: event.arguments,
      rule: event.rule ?? null,
      asked_at: new Date(event.ts).toISOString(),
      timeout_seconds: timeoutMs / 1000,
      answer: {
        file: `${id}.answer.json`,
        approve: '{"approve": true} or {"approve": false, "reason": "…"}',
      },
    });
    const cancel = awaitAnswer(dir, id, timeoutMs, {
      parse: (value) => (isRecord(value) && typeof value.approve === 'boolean' ? value : undefined),
      answered: (value) => {
        waiting.delete(key(event.agentId, event.callId));
        const reason =
          typeof value.reason === 'string' && value.reason.trim() !== '' ? value.reason : undefined;
        run.respondToApproval(
          event.agentId,
          event.callId,
          value.approve
            ? { approved: true, by: 'file' }
            : { approved: false, reason: reason ?? 'denied through the approvals file', by: 'file' },
        );
      },
      timedOut: () => {
        waiting.delete(key(event.agentId, event.callId));
        run.respondToApproval(event.agentId, event.callId, {
          approved: false,
          reason: `nobody answered within ${timeoutMs / 1000}s (tool_timeout_seconds)`,
          by: 'timeout',
        });
      },
    });
    waiting.set(key(event.agentId, event.callId), { agentId: event.agentId, cancel });
    say?.(
      `${event.agentId}'s ${event.toolName} waits for approval: write {"approve": true} or {"approve": false} to ${path.join(dir, `${id}.answer.json`)} (within ${timeoutMs / 1000}s)`,
    );
  };

  const drop = (stale: (entry: { agentId: string }, k: string) => boolean) => {
    for (const [k, entry] of waiting) {
      if (!stale(entry, k)) continue;
      entry.cancel();
      waiting.delete(k);
    }
  };
  const close = () => drop(() => true);

  return {
    handle(event) {
      routeApprovalEvent(event, {
        requested: ask,
        resolved: (resolved) => drop((_entry, k) => k === key(resolved.agentId, resolved.callId)),
        agentEnded: (agentId) => drop((entry) => entry.agentId === agentId),
        runFinished: close,
      });
    },
    close,
  };
}

/** Reviews of the winner's changes (`--review` without a terminal) answered through `<log folder>/reviews/`. */
export function createFileReviews(
  run: Pick<PreparedRun, 'respondToReview' | 'config'>,
  logDir: string,
  say?: (text: string) => void,
): FileAnswerer {
  const dir = path.join(logDir, 'reviews');
  const cancels: (() => void)[] = [];
  const timeoutMs = run.config.timeout_settings.orchestrator_timeout_seconds * 1000;
  const close = () => {
    for (const cancel of cancels.splice(0)) cancel();
  };
  return {
    handle(event) {
      if (event.type === 'run.finished') return close();
      if (event.type !== 'changes.proposed' || !event.awaitingReview) return;
      const id = safe(event.reviewId);
      const files = event.files.map((f) => f.path);
      mkdirSync(dir, { recursive: true });
      writeJson(path.join(dir, `${id}.request.json`), {
        id,
        context_path: event.contextPath,
        agent: event.agentId,
        branch: event.branch,
        files: event.files.map((f) => ({
          path: f.path,
          status: f.status,
          // What the change is in words: a link with its target, a rename, a mode or type change.
          change: describeChange(f),
          ...(f.from !== undefined ? { from: f.from } : {}),
          ...(f.linkTarget !== undefined ? { link_target: f.linkTarget } : {}),
          // Left out of {"apply": "all"}: applied only when its path is listed.
          ...(f.pickOnly !== undefined ? { pick_only: f.pickOnly } : {}),
          additions: f.additions,
          deletions: f.deletions,
        })),
        diff_file: event.diffFile,
        timeout_seconds: timeoutMs / 1000,
        answer: {
          file: `${id}.answer.json`,
          apply: '{"apply": "all"} (all but the pick_only ones), {"apply": "none"} or {"apply": ["path", …]}',
        },
      });
      cancels.push(
        awaitAnswer(dir, id, timeoutMs, {
          parse: (value) => {
            if (!isRecord(value)) return undefined;
            const apply = value.apply;
            if (apply === 'all' || apply === 'none') return apply;
            if (Array.isArray(apply) && apply.every((p) => typeof p === 'string'))
              return apply.filter((p) => files.includes(p));
            return undefined;
          },
          answered: (choice) => run.respondToReview(event.reviewId, choice, 'file'),
          timedOut: () => run.respondToReview(event.reviewId, 'none', 'timeout'),
        }),
      );
      say?.(
        `the changes to ${event.contextPath} wait for review: see ${path.join(dir, `${id}.request.json`)}, then write {"apply": "all"}, {"apply": "none"} or {"apply": [files]} to ${path.join(dir, `${id}.answer.json`)}`,
      );
    },
    close,
  };
}
