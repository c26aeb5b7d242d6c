import type { ErrorInfo, RunStatus } from './events.js';
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
  error?: ErrorInfo;
}
