import path from 'node:path';

/** File and folder names inside a run's log folder. */
export const LOG_FILES = {
  events: 'coordination_events.json',
  /** Every event as one JSON line, appended during the run (crash-safe; what replay reads). */
  journal: 'events.jsonl',
  status: 'status.json',
  vote: 'vote.json',
  /** The checklist criteria and score matrix, or the decomposition plan (only when the run used them). */
  scores: 'scores.json',
  table: 'coordination_table.txt',
  metadata: 'execution_metadata.yaml',
  answer: 'answer.txt',
  finalDir: 'final',
} as const;

const pad = (value: number, width: number): string => String(value).padStart(width, '0');

/**
 * Formats a date as `YYYYMMDD_HHMMSS_ffffff` in local time. JavaScript clocks stop at milliseconds,
 * so the microsecond field is always `ms * 1000`; the width matches the Python implementation's
 * folder names so existing tooling that sorts or parses them keeps working.
 */
export function formatLogTimestamp(date: Date): string {
  const day = `${pad(date.getFullYear(), 4)}${pad(date.getMonth() + 1, 2)}${pad(date.getDate(), 2)}`;
  const time = `${pad(date.getHours(), 2)}${pad(date.getMinutes(), 2)}${pad(date.getSeconds(), 2)}`;
  return `${day}_${time}_${pad(date.getMilliseconds() * 1000, 6)}`;
}

/**
 * Makes an id safe to use as one path segment. Agent ids come from user config; a `/` or `..` in
 * one must not let answer files escape the log folder.
 */
export function safePathSegment(id: string): string {
  const cleaned = id.replace(/[^A-Za-z0-9._-]/g, '_');
  if (cleaned === '') return '_';
  // `.` and `..` would name the folder itself or its parent.
  return /^\.+$/.test(cleaned) ? cleaned.replace(/\./g, '_') : cleaned;
}

/** `agent_<id>/<stamp>/answer.txt`, relative to the log folder. */
export function agentAnswerRelPath(agentId: string, stamp: string): string {
  return path.join(`agent_${safePathSegment(agentId)}`, stamp, LOG_FILES.answer);
}

/** `final/<winner id>/answer.txt`, relative to the log folder. */
export function finalAnswerRelPath(winnerId: string): string {
  return path.join(LOG_FILES.finalDir, safePathSegment(winnerId), LOG_FILES.answer);
}
