import type { RunResult } from '../types/run-result.js';

/**
 * The warning for a run whose log folder could not be written in full (a full disk, a folder made
 * read-only): the run's outcome stands, but files the user may look for are missing. Null when the
 * logs are complete.
 */
export function incompleteLogsWarning(result: RunResult): string | null {
  const error = result.logWriteError;
  if (!error || !result.logDir) return null;
  const missing =
    result.finalAnswer !== null && result.answerFile === null
      ? '; the final answer file was not written'
      : '';
  return `massgen: warning: logs in ${result.logDir} are incomplete: ${error.code}: ${error.message}${missing} — free some space (or pass --no-logs) and run again to keep them\n`;
}
