import type { RunStatus } from './events.js';

/**
 * The user's `Stop` hooks (docs/hooks.md), as the coordination asks them: told how the run would
 * end, a hook may answer Claude Code's `{"decision": "block", "reason": …}` to keep the run going,
 * the reason read by the agents as the user's follow-up.
 */

/** How the run would end, and whether it already goes on because of a Stop hook (`stop_hook_active`). */
export interface RunEnding {
  status: RunStatus;
  winnerId: string | null;
  finalAnswer: string | null;
  /** True once a Stop hook has kept this run going (Claude Code's `stop_hook_active`). */
  stopHookActive: boolean;
}

/** A hook that asked the run to go on: which one (`hooks.Stop[0].hooks[0]`) and why. */
export interface StopBlock {
  hook: string;
  reason: string;
}

/** Asks the run's Stop hooks; never throws (a failing hook is the caller's warning, not a block). */
export type StopHook = (ending: RunEnding, signal: AbortSignal) => Promise<StopBlock | null>;
