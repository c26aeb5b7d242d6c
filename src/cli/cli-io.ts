import { ConfigValidationError, formatDiagnostics } from '../app/essentials.js';
import type { Write } from '../app/plain-display.js';
import { MassGenError, describeError } from '../types/errors.js';
import { inertText } from '../util/terminal-text.js';
import { cliState } from './cli-state.js';
import type { RunViewIo } from './run-view.js';

/** What the CLI works with: the process's streams, folder and environment, or a test's. */
export interface CliIo {
  stdout: Write;
  stderr: Write;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Ctrl-C and SIGTERM arrive here; the CLI cancels the run and still flushes its logs. */
  signal?: AbortSignal;
  /** Whether stderr is a terminal (progress bars redraw in place there). */
  stderrIsTTY?: boolean;
  /** Terminal width, for the progress bar. */
  columns?: number;
  /** Answers for `--setup` and the first-run questions; without it the CLI never prompts. */
  stdin?: NodeJS.ReadableStream;
  /** Whether stdin is a terminal (typed API keys are then hidden). */
  stdinIsTTY?: boolean;
  /** Whether stdout is a terminal; first-run prompts need both. */
  stdoutIsTTY?: boolean;
  /** The home folder, for ~/.config/massgen; defaults to os.homedir(). */
  home?: string;
  /** The real terminal streams, for the live view. */
  terminal?: RunViewIo['terminal'];
  requestInterrupt?: () => void;
  /** While subscribed, every SIGINT/SIGTERM goes to the listener (interactive mode) instead of ending the run. */
  onInterrupt?: (listener: () => void) => () => void;
}

/** A flag combination or argument the CLI refuses (exit 1). */
export class UsageError extends MassGenError {
  constructor(message: string, hint?: string) {
    super('usage_error', message, hint ? { hint } : {});
  }
}

/** An error as `massgen: error: …` and its hint on stderr, scrubbed of the environment's secrets. */
export function printError(io: CliIo, error: unknown, debug: boolean): void {
  // An error may quote a model, a tool or a server: shown inert, never run by the terminal.
  const say = (text: string) => io.stderr(inertText(cliState.envScrubber.text(text)));
  say(`massgen: error: ${describeError(error)}\n`);
  if (error instanceof ConfigValidationError && error.diagnostics.length > 1) {
    say(`${formatDiagnostics(error.diagnostics, error.source)}\n`);
  }
  if (error instanceof MassGenError && error.hint) say(`hint: ${error.hint}\n`);
  if (debug && error instanceof Error && error.stack) say(`${error.stack}\n`);
}
