import { CancelledError, ExitCode } from '../types/errors.js';
import type { ErrorInfo, RunStatus } from '../types/events.js';
import { errorInfo } from './presentation.js';
import type { CoordinationSettings } from './settings.js';

/** Why coordination was stopped from outside its own loop. */
export type StopReason = 'timeout' | 'budget' | 'turn_limit' | 'cancelled' | 'answer_now';

/** How a run ended, before it becomes `run.finished`. */
export interface ConcludedRun {
  status: RunStatus;
  exitCode: number;
  winnerId: string | null;
  finalAnswer: string | null;
  error?: ErrorInfo;
}

/** The outcome when coordination stopped (timeout, budget or turn ceiling) before `what`. */
export function noAnswer(
  settings: CoordinationSettings,
  maxTurns: number,
  reason: 'timeout' | 'budget' | 'turn_limit',
  what: string,
): ConcludedRun {
  const errors = {
    budget: {
      code: 'budget_exceeded',
      message: `The cost budget of $${settings.maxCostUsd} was spent before ${what}.`,
    },
    turn_limit: {
      code: 'run_failed',
      message: `The run reached its ceiling of ${maxTurns} turns (orchestrator.max_total_turns) before ${what}.`,
    },
    timeout: { code: 'timeout', message: `The orchestrator timed out before ${what}.` },
  };
  const timedOut = reason === 'timeout';
  return {
    status: timedOut ? ('timeout' as const) : ('failed' as const),
    exitCode: timedOut ? ExitCode.timedOutWithoutAnswer : ExitCode.runFailed,
    winnerId: null,
    finalAnswer: null,
    error: errors[reason],
  };
}

/** The outcome of a run that threw: cancelled when it was stopped from outside, else failed. */
export function thrownOutcome(error: unknown, cancelled: boolean): ConcludedRun {
  return cancelled || error instanceof CancelledError
    ? {
        status: 'cancelled',
        exitCode: ExitCode.interrupted,
        winnerId: null,
        finalAnswer: null,
        error: errorInfo(new CancelledError()),
      }
    : {
        status: 'failed',
        exitCode: ExitCode.runFailed,
        winnerId: null,
        finalAnswer: null,
        error: errorInfo(error),
      };
}
