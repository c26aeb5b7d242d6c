import type { RunEventInput, RunStatus } from '../types/events.js';
import type { StopHook } from '../types/stop-hook.js';
import type { ConcludedRun, StopReason } from './run-outcome.js';

/**
 * The most times one run goes on for its `Stop` hooks (docs/hooks.md). Claude Code leaves the bound
 * to the hook (`stop_hook_active`); a run here has a cost, so a hook that always blocks ends it after
 * this many with a warning.
 */
export const MAX_STOP_CONTINUATIONS = 3;

/** What the gate needs of its run. */
export interface StopGateHost {
  emit(input: RunEventInput): void;
  scrub(text: string): string;
  readonly stopReason: StopReason | null;
  /**
   * Hands the hook's reason to every agent as the user's follow-up (`human.message`, source `hook`,
   * with `note` as the agents read it) and reopens the work: their votes no longer count.
   */
  continueWith(reason: string, note: string): void;
}

const ended: Record<RunStatus, string> = {
  completed: 'completed',
  failed: 'failed',
  timeout: 'timed out',
  cancelled: 'been cancelled',
};

/** How the agents read a Stop hook's reason: after the answer the run would have ended with. */
export function stopHookNote(reason: string, finalAnswer: string | null): string {
  const answer = finalAnswer === null ? '' : `The run's final answer was:\n${finalAnswer}\n\n`;
  return `${answer}The user's Stop hook did not let the run end there. It says:\n${reason}\n\nKeep working on this, then answer again.`;
}

/**
 * The user's `Stop` hooks, asked each time the run would end: a `block` on a completed run sends the
 * team back to work (at most {@link MAX_STOP_CONTINUATIONS} times), the reason as the user's
 * follow-up; every block is a `hook.stop.decided` event (the ledger's), and one the run cannot obey
 * is a warning.
 */
export class StopGate {
  private continuations = 0;

  constructor(
    private readonly hook: StopHook,
    private readonly host: StopGateHost,
    /** False in step mode: one action, nothing to go on with. */
    private readonly canContinue: boolean,
  ) {}

  /** Asks the Stop hooks how the run would end; true when it goes on (the agents have the reason). */
  async goesOn(outcome: ConcludedRun, signal: AbortSignal): Promise<boolean> {
    const block = await this.hook(
      {
        status: outcome.status,
        winnerId: outcome.winnerId,
        finalAnswer: outcome.finalAnswer,
        stopHookActive: this.continuations > 0,
      },
      signal,
    );
    if (!block) return false;
    const reason = this.host.scrub(block.reason);
    const completed = this.canContinue && outcome.status === 'completed' && this.host.stopReason === null;
    const obeyed = completed && this.continuations < MAX_STOP_CONTINUATIONS;
    if (obeyed) this.continuations++;
    this.host.emit({
      type: 'hook.stop.decided',
      hook: block.hook,
      decision: 'block',
      reason,
      obeyed,
      continuation: this.continuations,
    });
    if (obeyed) {
      this.host.continueWith(reason, stopHookNote(reason, outcome.finalAnswer));
      return true;
    }
    this.host.emit({
      type: 'run.warning',
      code: 'stop_hook_ignored',
      key: 'hooks.Stop',
      message: completed
        ? `${block.hook} asked to keep going again (${reason}), but a run goes on at most ${MAX_STOP_CONTINUATIONS} times for its Stop hooks: it ends here`
        : !this.canContinue
          ? `${block.hook} asked to keep going (${reason}), but a step run takes one action: it ends here`
          : `${block.hook} asked to keep going (${reason}), but the run had ${ended[outcome.status]}: it ends here`,
    });
    return false;
  }
}
