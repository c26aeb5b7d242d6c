import { ConfigValidationError } from '../config/index.js';
import type { Env } from '../types/env.js';

/**
 * A config file that failed to load, re-read the way `massgen --validate` reads it, so a run started
 * with a broken `--config` names every problem `--validate` would (the schema's, and what only the app
 * checks, such as an unknown backend type) instead of the schema's alone. Loaded only on failure:
 * validation pulls in every backend's checks.
 */
export async function withAllConfigProblems(
  error: unknown,
  file: string,
  options: { cwd: string; env?: Env },
): Promise<unknown> {
  if (!(error instanceof ConfigValidationError)) return error;
  const { validateConfig } = await import('./validate.js');
  const report = await validateConfig(file, options);
  if (report.errors.length <= error.diagnostics.length) return error;
  return new ConfigValidationError(report.errors, { source: error.source, cause: error });
}
