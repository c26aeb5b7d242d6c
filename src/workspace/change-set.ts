import path from 'node:path';
import type { ChangedFile, EntryKind } from '../types/permission-events.js';

/**
 * The winner's changes as people review them: file by file, hunk by hunk, read from git's unified
 * diff of one file, each with its kind (git's raw diff: modes, renames, links). Hunks are capped for
 * display (events, the web page); the whole patch is what the log folder keeps.
 */

/** Lines of one file shown at most; the rest is summarised in a last hunk. */
export const MAX_SHOWN_LINES_PER_FILE = 2000;

export type FileStatus = ChangedFile['status'];

/** One line of `git diff --raw -z -M`: modes, object ids, git's status letter and the path(s). */
export interface RawChange {
  /** `A`, `D`, `M`, `T` or `R` (renames carry `from`). */
  letter: string;
  oldMode: string;
  newMode: string;
  oldOid: string;
  newOid: string;
  /** Repository-relative (posix). */
  path: string;
  from?: string;
}

/** `git diff --raw -z -M --no-abbrev` → one {@link RawChange} per changed path. */
export function parseRawDiff(output: string): RawChange[] {
  const parts = output.split('\0');
  const changes: RawChange[] = [];
  let i = 0;
  while (i < parts.length) {
    const head = parts[i++] as string;
    if (!head.startsWith(':')) continue;
    const [oldMode = '', newMode = '', oldOid = '', newOid = '', status = ''] = head.slice(1).split(' ');
    const letter = status.charAt(0);
    if (letter === 'R' || letter === 'C') {
      const from = parts[i++] as string;
      const to = parts[i++] as string;
      // A copy leaves its source in place: for applying, it is a new file.
      changes.push(
        letter === 'R'
          ? { letter, oldMode, newMode, oldOid, newOid, path: to, from }
          : { letter: 'A', oldMode: '000000', newMode, oldOid: '0'.repeat(oldOid.length), newOid, path: to },
      );
    } else {
      changes.push({ letter, oldMode, newMode, oldOid, newOid, path: parts[i++] as string });
    }
  }
  return changes;
}

/** What a git mode stands for (null: no entry). */
export function kindOfMode(mode: string): EntryKind | null {
  switch (mode) {
    case '100755':
      return 'executable';
    case '120000':
      return 'symlink';
    case '160000':
      return 'repository';
    case '040000':
      return 'folder';
    case '000000':
    case '':
      return null;
    default:
      return 'file';
  }
}

/** The status shown for a raw change (before a folder replaced by something else is recognised). */
export function statusOf(change: RawChange): FileStatus {
  switch (change.letter) {
    case 'A':
      return 'added';
    case 'D':
      return 'deleted';
    case 'R':
      return 'renamed';
    case 'T':
      return 'type-changed';
    default:
      return change.oldOid === change.newOid && change.oldMode !== change.newMode
        ? 'mode-changed'
        : 'modified';
  }
}

/**
 * Why a symbolic link at `linkPath` (relative to the folder, posix) holding `target` is not applied by
 * "apply all": it leads outside the folder (an absolute path elsewhere, or `..` past the top) or into a
 * repository's `.git`. Null for a link that stays inside. Judged on the text alone, as the user's tools
 * would later follow it.
 */
export function linkConcern(linkPath: string, target: string, folder: string): string | null {
  const outside = `a symbolic link to ${target}, outside the folder`;
  let inside: string;
  if (path.posix.isAbsolute(target)) {
    const absolute = path.posix.normalize(target);
    const top = folder.split(path.sep).join('/');
    if (absolute !== top && !absolute.startsWith(`${top.replace(/\/$/, '')}/`)) return outside;
    inside = path.posix.relative(top, absolute);
  } else {
    inside = path.posix.normalize(path.posix.join(path.posix.dirname(linkPath), target));
    if (inside === '..' || inside.startsWith('../')) return outside;
  }
  if (inside.split('/').some((part) => part.toLowerCase() === '.git')) {
    return `a symbolic link to ${target}, into a repository's .git`;
  }
  return null;
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

/**
 * Which of `files` a review chose. "All" leaves out the changes marked `pickOnly` (a link leading out of
 * the folder, a repository of its own): those count only when picked by name.
 */
export function chosenFiles(
  files: readonly Pick<ChangedFile, 'path' | 'pickOnly'>[],
  choice: 'all' | 'none' | readonly string[],
): { chosen: string[]; skipped: string[] } {
  const wanted =
    choice === 'all'
      ? (file: Pick<ChangedFile, 'pickOnly'>) => file.pickOnly === undefined
      : choice === 'none'
        ? () => false
        : (file: Pick<ChangedFile, 'path'>) => choice.includes(file.path);
  return {
    chosen: files.filter(wanted).map((f) => f.path),
    skipped: files.filter((f) => !wanted(f)).map((f) => f.path),
  };
}
