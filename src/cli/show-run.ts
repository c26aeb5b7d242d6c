import type { RunEvent } from '../types/events.js';
import { describeError, ExitCode, exitCodeForError, MassGenError } from '../types/errors.js';
import type { RunResult } from '../types/run-result.js';
import type { RunView } from './run-view.js';

/** What a run's events go to besides its view, and what is said once the view has closed. */
export interface ShowRunHooks {
  /** Sees each event before the view (the `--inbox-dir` watcher). */
  beforeView?: (event: RunEvent) => void;
  /** After the view has finished: the terminal is the CLI's again. */
  afterView: () => Promise<void>;
  /** Says an error that ended the stream (once, never under the live view). */
  sayError: (error: unknown) => void;
}

/**
 * Feeds a run's events to its view until the stream ends, then closes the view. An error that ends
 * the stream early (a view or a log that threw) is said once the live view has closed: written under
 * it, the view's next frame would erase it and the run would read as cancelled.
 *
 * @returns the error that ended the stream, or null when it ran to its end.
 */
export async function showRun(
  events: AsyncIterable<RunEvent>,
  view: RunView,
  hooks: ShowRunHooks,
): Promise<{ error: unknown } | null> {
  let failure: { error: unknown } | null = null;
  // Read when the error comes: a finished view is never live, so asking afterwards would say nothing.
  let deferred = false;
  try {
    for await (const event of events) {
      hooks.beforeView?.(event);
      view.handle(event);
    }
  } catch (error) {
    failure = { error };
    deferred = view.live;
    if (!deferred) hooks.sayError(error);
  } finally {
    await view.finish();
    await hooks.afterView();
    if (failure && deferred) hooks.sayError(failure.error);
  }
  return failure;
}

/**
 * The outcome of a run whose stream an error ended: the run was cancelled because its consumer left,
 * but that error, not a cancel, is what happened — exit 2 ("run failed") unless it was a cancel.
 */
export function resultOfFailedStream(result: RunResult, error: unknown): RunResult {
  const exitCode = exitCodeForError(error);
  if (exitCode === ExitCode.interrupted) return result;
  return {
    ...result,
    status: 'failed',
    exitCode,
    error: { code: error instanceof MassGenError ? error.code : 'run_failed', message: describeError(error) },
  };
}
