import type { ChangedFile } from '../types/permission-events.js';

/**
 * The winner's changes as people review them: file by file, hunk by hunk, read from git's unified
 * diff of one file. Hunks are capped for display (events, the web page); the whole patch is what is
 * applied and what the log folder keeps.
 */

/** Lines of one file shown at most; the rest is summarised in a last hunk. */
export const MAX_SHOWN_LINES_PER_FILE = 2000;

export type FileStatus = ChangedFile['status'];

/** `git diff --name-status -z --no-renames` → status and path of each changed file. */
export function parseNameStatus(output: string): { status: FileStatus; path: string }[] {
  const parts = output.split('\0').filter((p) => p !== '');
  const files: { status: FileStatus; path: string }[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const code = parts[i] as string;
    const file = parts[i + 1] as string;
    const status: FileStatus = code.startsWith('A') ? 'added' : code.startsWith('D') ? 'deleted' : 'modified';
    files.push({ status, path: file });
  }
  return files;
}

/** The hunks and counts of one file's patch (as `git diff` writes it). */
export function parseFilePatch(
  patch: string,
): Pick<ChangedFile, 'binary' | 'additions' | 'deletions' | 'hunks'> {
  const lines = patch.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const binary = lines.some((l) => l === 'GIT binary patch' || /^Binary files .* differ$/.test(l));
  const hunks: ChangedFile['hunks'] = [];
  let additions = 0;
  let deletions = 0;
  let shown = 0;
  let hidden = 0;
  let current: { header: string; lines: string[] } | null = null;
  for (const line of lines) {
    if (line.startsWith('@@')) {
      current = { header: line, lines: [] };
      hunks.push({ header: line, lines: '' });
      continue;
    }
    if (current === null || binary) continue;
    if (line.startsWith('+')) additions++;
    else if (line.startsWith('-')) deletions++;
    else if (!line.startsWith(' ') && !line.startsWith('\\')) continue;
    if (shown >= MAX_SHOWN_LINES_PER_FILE) {
      hidden++;
      continue;
    }
    shown++;
    current.lines.push(line);
    (hunks.at(-1) as ChangedFile['hunks'][number]).lines = current.lines.join('\n');
  }
  if (hidden > 0) {
    hunks.push({ header: `… ${hidden} more lines not shown (the diff file has them all)`, lines: '' });
  }
  return { binary, additions, deletions, hunks: binary ? [] : hunks };
}

/** Which of `files` a review chose. */
export function chosenFiles(
  files: readonly string[],
  choice: 'all' | 'none' | readonly string[],
): { chosen: string[]; skipped: string[] } {
  if (choice === 'all') return { chosen: [...files], skipped: [] };
  if (choice === 'none') return { chosen: [], skipped: [...files] };
  const wanted = new Set(choice);
  return {
    chosen: files.filter((f) => wanted.has(f)),
    skipped: files.filter((f) => !wanted.has(f)),
  };
}

/** How `git apply --3way` went for one file. */
export type ApplyOutcome = { kind: 'applied' } | { kind: 'conflict' } | { kind: 'failed'; message: string };

/** Reads `git apply --3way`'s exit code and messages for one file. */
export function applyOutcome(code: number, stderr: string): ApplyOutcome {
  if (/with conflicts\./.test(stderr) || /^U /m.test(stderr)) return { kind: 'conflict' };
  if (code === 0) return { kind: 'applied' };
  if (/does not exist in index|No such file/.test(stderr)) {
    return { kind: 'failed', message: 'it was deleted from your folder since the run began; not recreated' };
  }
  if (/already exists in (working directory|index)/.test(stderr)) {
    return { kind: 'failed', message: 'a file of that name exists in your folder now; not overwritten' };
  }
  const message =
    stderr
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('error:'))
      .map((l) => l.replace(/^error:\s*/, ''))
      .join('; ') ||
    stderr.trim() ||
    `git apply failed (exit ${code})`;
  return { kind: 'failed', message };
}
