import type { ErrorInfo, RunStatus } from './events.js';
import type { KeptCheckout } from './permission-events.js';
import type { TokenUsage } from './usage.js';

/** What a finished run returns to library callers and front ends. */
export interface RunResult {
  runId: string;
  question: string;
  status: RunStatus;
  exitCode: number;
  /** Real config id of the winning agent, or null when no answer exists. */
  winnerId: string | null;
  finalAnswer: string | null;
  durationMs: number;
  usage: Record<string, TokenUsage>;
  /** Absolute path of this run's log folder, when logging was on. */
  logDir: string | null;
  /** Absolute path of the logged final answer (`final/<winner>/answer.txt`), when logged. */
  answerFile: string | null;
  /** The winner's workspace (the run's deliverable): its copy in the log folder, or null without one. */
  workspaceDir: string | null;
  /**
   * The winner's changes to isolated context paths (`write_mode: worktree`), one entry per path that
   * changed: which files were applied, applied with conflicts, failed or left out, and who chose.
   */
  changes?: ChangesSummary[];
  /**
   * Checkouts left in place (with their branches): all with `--keep-worktrees`; else the winner's when its
   * changes did not all come back.
   */
  keptWorktrees?: { agentId: string; contextPath: string; path: string; branch: string }[];
  /** Skills the final answer proposed (`skills: { evolve: true }`), written to `.massgen/proposed-skills/`. */
  proposedSkills?: string[];
  error?: ErrorInfo;
  /**
   * The log folder is incomplete: the first write that failed (`code` is the system's, e.g. `ENOSPC`
   * for a full disk). The run itself is as `status` says; `answerFile` is null when it was not written.
   */
  logWriteError?: ErrorInfo;
  /** The `Stop` hooks that failed or timed out during the run: one line each (docs/hooks.md). */
  hookWarnings?: string[];
}

/** What became of the winner's changes to one isolated context path (docs/permissions.md). */
export interface ChangesSummary {
  reviewId: string;
  contextPath: string;
  by: string;
  applied: string[];
  conflicts: string[];
  failed: { path: string; message: string }[];
  skipped: string[];
  /** The whole patch in the log folder, or null with logging off. */
  diffFile: string | null;
  /** The winner's checkout, kept because its changes did not all come back, with how to apply them by hand. */
  kept?: KeptCheckout | null;
}

/**
 * The result of a run that never finished or never started: cancelled, no answer. `runId` and
 * `message` say which side noticed (a queued job removed before a worker took it, a stream left
 * before its end).
 */
export const notRunResult = (question: string, runId: string, message: string): RunResult => ({
  runId,
  question,
  status: 'cancelled',
  exitCode: 130,
  winnerId: null,
  finalAnswer: null,
  durationMs: 0,
  usage: {},
  logDir: null,
  answerFile: null,
  workspaceDir: null,
  error: { code: 'cancelled', message },
});
