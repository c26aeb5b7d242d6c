import type { FailureLog } from './agent-failures.js';
import type { RunContext } from './run-context.js';
import type { StopReason } from './run-outcome.js';

/**
 * What the run's phases (single agent, step mode, conclusion) need of the run beyond what a turn
 * sees: why it stopped, its failures, and the presentation timeout. CoordinationRun implements it;
 * the phases are plain functions over it so the run class only owns state and schedules.
 */
export interface RunControl extends RunContext {
  /** Null while the run goes on; set once by the first stop (timeout, budget, Ctrl-C, ...). */
  readonly stopReason: StopReason | null;
  /** The ceiling on turns (`orchestrator.max_total_turns`). */
  readonly maxTurns: number;
  /** Set once some provider answered (a finished step, streamed output, an error it sent). */
  readonly reachedProvider: boolean;
  readonly failures: FailureLog;
  /** Appended to when the winner sends an attempt back (`max_orchestration_restarts`). */
  readonly restartNotes: { reason: string; instructions: string }[];
  /**
   * Runs presentation-phase work under the turn timeout. With `agentIndex`, the work is registered
   * as that agent's turn so the orchestrator timeout can stop it (the single-agent shortcut).
   */
  withPresentationTimeout<T>(work: (signal: AbortSignal) => Promise<T>, agentIndex?: number): Promise<T>;
}
