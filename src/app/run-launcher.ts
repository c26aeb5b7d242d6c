import type { RunEvent } from '../types/events.js';
import type { RunResult } from '../types/run-result.js';
import type { MassGenOptions } from './run-massgen.js';

/**
 * Starts a run somewhere other than this process — e.g. on a queue worker (`massgen serve --queue`) —
 * and streams its events back. The promise settles once the run is handed over (a bad config rejects
 * it, as `prepareRun` would); the generator yields the run's events in order and returns its result.
 * Stopping the generator early, or aborting `options.signal`, cancels the run.
 */
export type RunLauncher = (
  options: MassGenOptions,
) => Promise<AsyncGenerator<RunEvent, RunResult, undefined>>;
