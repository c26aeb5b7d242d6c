import { ConfigValidationError, formatDiagnostics } from '../../app/index.js';
import { describeError, MassGenError } from '../../types/errors.js';
import type { Write } from '../../app/plain-display.js';
import { inertWriter } from '../../util/terminal-text.js';

/**
 * One `massgen: error:` line, the config diagnostics if several, and the hint (stack with `debug`).
 * An error may quote a model, a tool or a server: everything is written inert.
 */
export function printError(stderr: Write, error: unknown, debug = false): void {
  const say = inertWriter(stderr);
  say(`massgen: error: ${describeError(error)}\n`);
  if (error instanceof ConfigValidationError && error.diagnostics.length > 1) {
    say(`${formatDiagnostics(error.diagnostics, error.source)}\n`);
  }
  if (error instanceof MassGenError && error.hint) say(`hint: ${error.hint}\n`);
  if (debug && error instanceof Error && error.stack) say(`${error.stack}\n`);
}
