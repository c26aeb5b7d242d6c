import path from 'node:path';
import type { ChangedFile, EntryKind } from '../types/permission-events.js';
import {
  kindOfMode,
  linkConcern,
  parseFilePatch,
  parseRawDiff,
  statusOf,
  type RawChange,
} from './change-set.js';
import { git, gitBytes, literal, type GitOptions } from './git.js';

/**
 * What an agent's branch changed in an isolated folder since the run began, as reviewers see it and
 * as the apply needs it: each path with its kind on both sides (file, executable, link with its target,
 * folder, repository), renames, the objects to read, and its patch.
 */

/** One changed path, with what git is given beside what the reviewer sees. */
export interface FileChange extends ChangedFile {
  /** The path in the repository (posix). */
  repoPath: string;
  /** A renamed file's old path in the repository. */
  fromRepo?: string;
  oldMode: string;
  newMode: string;
  oldOid: string;
  newOid: string;
  patch: string;
}

export interface ChangeSource {
  /** Git options for diffs between commits of the repository. */
  git: GitOptions;
  base: string;
  branch: string;
  /** The folder's place in the repository (posix, `''` for the top). */
  sub: string;
  /** The user's folder (real path). */
  folder: string;
  /** True for a path (relative to the folder) that is never written. */
  isProtected(relPath: string): boolean;
  /** Folders of the checkout holding a repository of their own (repository-relative), left out of its commits. */
  nested: readonly string[];
}

const NONE = '0000000000000000000000000000000000000000';

const REPOSITORY_NOTE =
  'a git repository of its own: never applied (its files stay in the winner’s checkout, which is kept)';

/** The branch's changes against the start, sorted by path. */
export async function readChanges(source: ChangeSource): Promise<FileChange[]> {
  const { sub } = source;
  const scope = sub === '' ? '.' : sub;
  const listed = await git(
    ['diff', '--raw', '-z', '-M', '--no-abbrev', '--no-ext-diff', source.base, source.branch, '--', scope],
    source.git,
  );
  if (listed.code !== 0) throw new Error(`git diff failed: ${listed.stderr.trim()}`);
  const raw = parseRawDiff(listed.stdout).flatMap((change) => unprotected(change, source));
  const inFolder = (repoPath: string) => (sub === '' ? repoPath : path.posix.relative(sub, repoPath));
  // The folders that lose files, and those that gain some: a path among them was (or becomes) a folder.
  const emptied = folders(
    raw.filter((c) => c.letter === 'D' || c.letter === 'R').map((c) => c.from ?? c.path),
  );
  const filled = folders(raw.filter((c) => c.letter !== 'D').map((c) => c.path));

  const files: FileChange[] = [];
  for (const change of raw) {
    let status = statusOf(change);
    let before = kindOfMode(change.oldMode);
    let after = kindOfMode(change.newMode);
    // A folder replaced by a file or link (its files deleted), or the reverse, is one change of type.
    if (change.letter === 'A' && emptied.has(change.path)) [status, before] = ['type-changed', 'folder'];
    if (change.letter === 'D' && filled.has(change.path)) [status, after] = ['type-changed', 'folder'];
    const shown = inFolder(change.path);
    const file: FileChange = {
      path: shown,
      status,
      before,
      after,
      repoPath: change.path,
      oldMode: change.oldMode,
      newMode: change.newMode,
      oldOid: change.oldOid,
      newOid: change.newOid,
      patch: '',
      binary: false,
      additions: 0,
      deletions: 0,
      hunks: [],
    };
    if (change.from !== undefined) {
      file.from = inFolder(change.from);
      file.fromRepo = change.from;
    }
    if (after === 'symlink') {
      file.linkTarget = (await gitBytes(['cat-file', 'blob', change.newOid], source.git)).toString('utf8');
      const concern = linkConcern(shown, file.linkTarget, source.folder);
      if (concern !== null) file.pickOnly = concern;
    }
    if (after === 'repository') file.pickOnly = REPOSITORY_NOTE;
    file.patch = await patchOf(source, change);
    Object.assign(file, parseFilePatch(file.patch));
    files.push(file);
  }
  for (const folder of source.nested) {
    if (sub !== '' && !folder.startsWith(`${sub}/`)) continue;
    const shown = inFolder(folder);
    if (source.isProtected(shown)) continue;
    const replaced = files.find((f) => f.repoPath === folder && f.status === 'deleted');
    const before: EntryKind | null = replaced ? (replaced.before ?? null) : null;
    if (replaced) files.splice(files.indexOf(replaced), 1);
    files.push({
      path: shown,
      status: before === null ? 'added' : 'type-changed',
      before,
      after: 'repository',
      pickOnly: REPOSITORY_NOTE,
      repoPath: folder,
      oldMode: replaced?.oldMode ?? '000000',
      newMode: '160000',
      oldOid: replaced?.oldOid ?? NONE,
      newOid: NONE,
      patch: replaced?.patch ?? '',
      binary: false,
      additions: 0,
      deletions: replaced?.deletions ?? 0,
      hunks: replaced?.hunks ?? [],
    });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Every folder above each of `paths`. */
function folders(paths: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const p of paths) {
    for (let i = p.indexOf('/'); i !== -1; i = p.indexOf('/', i + 1)) out.add(p.slice(0, i));
  }
  return out;
}

/**
 * A protected path is never written: a change there is dropped; a rename out of one becomes the new
 * file alone (the protected one stays), a rename into one the old file's deletion alone.
 */
function unprotected(change: RawChange, source: ChangeSource): RawChange[] {
  const relative = (p: string) => (source.sub === '' ? p : path.posix.relative(source.sub, p));
  const to = source.isProtected(relative(change.path));
  if (change.from === undefined) return to ? [] : [change];
  const from = source.isProtected(relative(change.from));
  if (from && to) return [];
  if (from) return [{ ...change, letter: 'A', oldMode: '000000', oldOid: NONE, from: undefined }];
  if (to)
    return [{ ...change, letter: 'D', path: change.from, newMode: '000000', newOid: NONE, from: undefined }];
  return [change];
}

async function patchOf(source: ChangeSource, change: RawChange): Promise<string> {
  const paths = change.from === undefined ? [change.path] : [change.from, change.path];
  const result = await git(
    [
      'diff',
      '--no-color',
      '--no-ext-diff',
      change.from === undefined ? '--no-renames' : '-M',
      '--full-index',
      '--binary',
      source.base,
      source.branch,
      '--',
      ...paths.map(literal),
    ],
    source.git,
  );
  return result.stdout;
}
