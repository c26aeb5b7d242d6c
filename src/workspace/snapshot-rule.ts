import path from 'node:path';

/**
 * What a snapshot of a workspace leaves out, so that sharing an answer's files stays fast and small:
 * dependency and cache folders (they can be rebuilt), version-control folders, a harness's private home,
 * files over 10 MiB, and
 * symbolic links (a link could point a viewer outside the folders it may read).
 */
export const SNAPSHOT_EXCLUDED_DIRS: readonly string[] = [
  'node_modules',
  '.git',
  '.hg',
  '.svn',
  '.venv',
  'venv',
  '__pycache__',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  '.next',
  '.turbo',
  '.cache',
  '.tmp',
  // A coding-agent harness's own home (config, sessions, its key): private to that agent, never shared.
  '.harness-home',
];

export const SNAPSHOT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** True when `entry` (relative to the workspace) belongs in a snapshot. */
export function inSnapshot(
  relativePath: string,
  stats: { isDirectory(): boolean; isSymbolicLink(): boolean; size: number },
): boolean {
  if (stats.isSymbolicLink()) return false;
  if (stats.isDirectory()) return !SNAPSHOT_EXCLUDED_DIRS.includes(path.basename(relativePath));
  return stats.size <= SNAPSHOT_MAX_FILE_BYTES;
}
