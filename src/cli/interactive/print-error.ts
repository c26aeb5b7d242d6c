import { ConfigValidationError, formatDiagnostics } from '../../app/index.js';
import { describeError, MassGenError } from '../../types/errors.js';
import type { Write } from '../../app/plain-display.js';

/** One `massgen: error:` line, the config diagnostics if several, and the hint (stack with `debug`). */
export function printError(stderr: Write, error: unknown, debug = false): void {
  stderr(`massgen: error: ${describeError(error)}\n`);
  if (error instanceof ConfigValidationError && error.diagnostics.length > 1) {
    stderr(`${formatDiagnostics(error.diagnostics, error.source)}\n`);
  }
  if (error instanceof MassGenError && error.hint) stderr(`hint: ${error.hint}\n`);
  if (debug && error instanceof Error && error.stack) stderr(`${error.stack}\n`);
}
