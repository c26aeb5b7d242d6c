import type { PreparedRun } from '../app/essentials.js';
import { urlPasswordScrubber, type SecretScrubber } from '../util/secret-scrubber.js';
import type { RunView } from './run-view.js';

/**
 * What the process-level handlers of `main` (signals, crashes) need of the command in progress: one
 * CLI per process, so one place.
 */
export const cliState: {
  /** The run in progress, so its logs can be flushed synchronously. */
  run: PreparedRun | null;
  /** The current run's view: while the live view owns the screen, signal messages stay off it. */
  view: RunView | null;
  /** Every secret the environment holds, for messages printed before a run has its own scrubber. */
  envScrubber: SecretScrubber;
} = { run: null, view: null, envScrubber: urlPasswordScrubber };
