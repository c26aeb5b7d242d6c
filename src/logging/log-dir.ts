import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { formatLogTimestamp } from './paths.js';
import { errorCode } from '../util/guards.js';
import { ConfigError, describeError } from '../types/errors.js';

/** Gives up on suffixes long before this; reaching it means something else is wrong. */
const MAX_SUFFIX = 1000;

/** The outcome of {@link allocateLogDir}: a folder path, and why it could not be created, if so. */
export interface LogDirAllocation {
  /** Absolute path of the run's log folder. */
  logDir: string;
  error: Error | null;
}

/**
 * Creates `<rootDir>/log_<stamp>`, or `_2`, `_3`… when runs start in the same millisecond.
 * Never rejects: logging must not stop a run, so a failure comes back as `error` with the
 * intended path, and later writes simply try again.
 */
export async function allocateLogDir(rootDir: string, startedAt: Date): Promise<LogDirAllocation> {
  const base = path.join(path.resolve(rootDir), `log_${formatLogTimestamp(startedAt)}`);
  try {
    await mkdir(path.dirname(base), { recursive: true });
    for (let n = 1; n <= MAX_SUFFIX; n++) {
      const candidate = n === 1 ? base : `${base}_${n}`;
      try {
        // Non-recursive on purpose: EEXIST is how a concurrent run's folder is detected.
        await mkdir(candidate);
        return { logDir: candidate, error: null };
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
    }
    throw new Error(`Could not find a free log folder name next to ${base}`);
  } catch (error) {
    return { logDir: base, error: error instanceof Error ? error : new Error(String(error)) };
  }
}

/** The log folder cannot be created or written: the run must not start (exit code 1). */
export class LogFolderError extends ConfigError {
  constructor(
    readonly folder: string,
    cause: unknown,
  ) {
    super(`cannot write the log folder ${folder}: ${describeError(cause)}`, {
      hint: 'make the folder writable, run from another directory, or turn logs off with --no-logs',
      cause,
    });
    this.name = 'LogFolderError';
  }
}
