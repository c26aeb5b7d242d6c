import { lstat, mkdir, readFile, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from '../util/guards.js';
import type { FileChange } from './branch-changes.js';
import { git, gitBytes, gitRaw, literal, type GitOptions } from './git.js';

/**
 * The first half of bringing the winner's changes back: every chosen change is checked against the
 * user's folder as it is now, before anything is written, and turned into file operations. A change
 * that could lose the user's work is refused with the reason — removing a file with uncommitted or
 * untracked changes, or one changed since the run began; writing through a symbolic link (the target or
 * any folder above it); replacing a folder that still holds files nobody approved removing; a
 * repository of its own. One refusal and nothing is applied ({@link planApply}'s `refused`).
 */

/** One file operation, relative to the user's folder (posix). */
export type ApplyOp =
  | { op: 'remove'; rel: string }
  | { op: 'rmdir'; rel: string }
  /** `mode` null: a new file, whose permissions the umask decides as git's would. */
  | { op: 'write'; rel: string; content: Buffer; executable: boolean; mode: number | null }
  | { op: 'link'; rel: string; linkTarget: string }
  | { op: 'chmod'; rel: string; mode: number };

export interface ApplyPlan {
  ops: ApplyOp[];
  /** Chosen paths that apply cleanly (or are already as the winner left them). */
  applied: string[];
  /** Chosen paths merged three-way with conflicts marked. */
  conflicts: string[];
  refused: { path: string; message: string }[];
}

/** The user's side of the apply. */
export interface UserSide {
  /** The user's folder (real path). */
  folder: string;
  /** Reads objects; for a checkout, also the user's own status. */
  git: GitOptions;
  /** True when `folder` is part of the user's git checkout (false: a copy of a folder outside git). */
  checkout: boolean;
  /** The folder's place in the repository (posix, `''` for the top). */
  sub: string;
  /** A private, empty folder for the inputs of three-way merges. */
  scratch: string;
}

type Kind = 'absent' | 'file' | 'link' | 'dir' | 'other';

const WORDS: Record<Kind, string> = {
  absent: 'missing',
  file: 'a file',
  link: 'a symbolic link',
  dir: 'a folder',
  other: 'a special file',
};

class Refusal extends Error {}

/** Binary as git judges it: a NUL byte in the first 8000. */
const binary = (content: Buffer) => content.subarray(0, 8000).includes(0);

/** Checks every chosen change and plans its file operations; writes nothing in the user's folder. */
export async function planApply(side: UserSide, chosen: readonly FileChange[]): Promise<ApplyPlan> {
  const root = await lstat(side.folder).catch(() => null);
  if (root === null || !root.isDirectory()) {
    const message = `${side.folder} is no longer a folder (gone, or replaced by a link)`;
    return { ops: [], applied: [], conflicts: [], refused: chosen.map((c) => ({ path: c.path, message })) };
  }
  const planner = new Planner(side);
  await planner.readStatus(chosen);
  const plan: ApplyPlan = { ops: planner.ops, applied: [], conflicts: [], refused: [] };
  const refuse = (change: FileChange, error: unknown) => {
    if (!(error instanceof Refusal)) throw error;
    plan.refused.push({ path: change.path, message: error.message });
  };
  const refusedPaths = new Set<string>();
  // Removals first: a folder emptied by them may then give way to a file or link.
  for (const change of chosen) {
    try {
      await planner.removal(change);
    } catch (error) {
      refuse(change, error);
      refusedPaths.add(change.path);
    }
  }
  for (const change of chosen) {
    if (refusedPaths.has(change.path)) continue;
    try {
      const merged = await planner.creation(change);
      (merged === 'conflict' ? plan.conflicts : plan.applied).push(change.path);
    } catch (error) {
      refuse(change, error);
    }
  }
  return plan;
}

class Planner {
  readonly ops: ApplyOp[] = [];
  /** What each path will be once the planned operations are done. */
  private readonly overlay = new Map<string, Kind>();
  /** `git status` of the user's checkout for each path a change removes: `XY` codes. */
  private readonly status = new Map<string, string>();
  private merges = 0;

  constructor(private readonly side: UserSide) {}

  private abs(rel: string): string {
    return path.join(this.side.folder, ...rel.split('/'));
  }

  private repoPath(rel: string): string {
    return this.side.sub === '' ? rel : `${this.side.sub}/${rel}`;
  }

  private async kind(rel: string): Promise<Kind> {
    const planned = this.overlay.get(rel);
    if (planned !== undefined) return planned;
    try {
      const stats = await lstat(this.abs(rel));
      if (stats.isSymbolicLink()) return 'link';
      if (stats.isFile()) return 'file';
      if (stats.isDirectory()) return 'dir';
      return 'other';
    } catch (error) {
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return 'absent';
      throw error;
    }
  }

  /** No folder above `rel` may be a link (it would carry the write elsewhere) or a file. */
  private async parents(rel: string): Promise<void> {
    const parts = rel.split('/');
    if (parts.some((p) => p === '' || p === '.' || p === '..' || p.toLowerCase() === '.git')) {
      throw new Refusal(`${rel} is not a plain path inside the folder`);
    }
    for (let i = 1; i < parts.length; i++) {
      const above = parts.slice(0, i).join('/');
      const kind = await this.kind(above);
      if (kind === 'dir' || kind === 'absent') continue;
      throw new Refusal(
        kind === 'link'
          ? `${above} is a symbolic link in your folder: writing ${rel} would go through it`
          : `${above} is ${WORDS[kind]} in your folder, not a folder`,
      );
    }
  }

  /** Working-tree bytes of a blob, as a checkout would write them (the user's filters and line endings). */
  private blob(repoPath: string, oid: string): Promise<Buffer> {
    return gitBytes(['cat-file', '--filters', `--path=${repoPath}`, oid], this.side.git);
  }

  private async linkText(oid: string): Promise<string> {
    return (await gitBytes(['cat-file', 'blob', oid], this.side.git)).toString('utf8');
  }

  /** The user's status of every path a chosen change removes, in one `git status`. */
  async readStatus(chosen: readonly FileChange[]): Promise<void> {
    if (!this.side.checkout) return;
    const removed = chosen.flatMap((c) => removedPath(c) ?? []).map((r) => this.repoPath(r.rel));
    for (let i = 0; i < removed.length; i += 500) {
      const result = await git(
        [
          'status',
          '--porcelain=v1',
          '-z',
          '--ignored=matching',
          '--untracked-files=all',
          '--no-renames',
          '--',
          ...removed.slice(i, i + 500).map(literal),
        ],
        this.side.git,
      );
      if (result.code !== 0) throw new Error(`git status failed: ${result.stderr.trim()}`);
      for (const entry of result.stdout.split('\0')) {
        if (entry.length > 3) this.status.set(entry.slice(3), entry.slice(0, 2));
      }
    }
  }

  /** Plans the removal a change implies (a deletion, a rename's old path, a type change's old file). */
  async removal(change: FileChange): Promise<void> {
    if (change.after === 'repository' || change.before === 'repository') {
      throw new Refusal(
        change.after === 'repository'
          ? 'it is a git repository of its own in the winner’s checkout: copy it by hand from the kept checkout'
          : 'it is a git repository (a submodule) in your folder: massgen does not change it',
      );
    }
    const removed = removedPath(change);
    if (removed === null) return;
    const { rel, repoPath } = removed;
    await this.parents(rel);
    const kind = await this.kind(rel);
    if (kind === 'absent') return;
    const link = change.oldMode === '120000';
    const it = rel === change.path ? 'it' : `its old path ${rel}`;
    if (kind !== (link ? 'link' : 'file')) {
      throw new Refusal(`${it} is ${WORDS[kind]} in your folder now; not removed`);
    }
    const same = link
      ? (await readlink(this.abs(rel), 'utf8')) === (await this.linkText(change.oldOid))
      : (await readFile(this.abs(rel))).equals(await this.blob(repoPath, change.oldOid));
    if (!same)
      throw new Refusal(`${it} changed in your folder since the run began; removing it would lose that`);
    const code = this.status.get(this.repoPath(rel));
    if (code !== undefined) {
      throw new Refusal(
        code === '??'
          ? `${it} is untracked in your checkout (never committed): removing it would lose it`
          : code === '!!'
            ? `${it} is ignored by git in your checkout (never committed): removing it would lose it`
            : `${it} has uncommitted changes in your checkout: removing it would lose them`,
      );
    }
    this.ops.push({ op: 'remove', rel });
    this.overlay.set(rel, 'absent');
  }

  /** Plans what a change creates or rewrites; says whether a three-way merge left conflicts. */
  async creation(change: FileChange): Promise<'clean' | 'conflict'> {
    const { after } = change;
    if (change.status === 'deleted' || after === 'folder' || after === null || after === undefined) {
      return 'clean';
    }
    const rel = change.path;
    await this.parents(rel);
    let kind = await this.kind(rel);
    if (change.before === 'folder' && kind === 'dir') {
      const blocking = await this.clearFolder(rel);
      if (blocking !== null) {
        throw new Refusal(
          `it is a folder in your folder that still holds ${blocking}, which this review does not remove`,
        );
      }
      kind = 'absent';
    }
    if (after === 'symlink') return this.link(change, kind);
    return this.file(change, kind);
  }

  private async link(change: FileChange, kind: Kind): Promise<'clean'> {
    const rel = change.path;
    const target = change.linkTarget ?? (await this.linkText(change.newOid));
    if (kind === 'link') {
      const current = await readlink(this.abs(rel), 'utf8');
      if (current === target) return 'clean';
      const retarget = change.status === 'modified' && current === (await this.linkText(change.oldOid));
      if (!retarget)
        throw new Refusal(`it is a symbolic link to ${current} in your folder now; not replaced`);
      this.ops.push({ op: 'remove', rel });
    } else if (kind !== 'absent') {
      throw new Refusal(`it is ${WORDS[kind]} in your folder; not replaced by a symbolic link`);
    }
    this.ops.push({ op: 'link', rel, linkTarget: target });
    this.overlay.set(rel, 'link');
    return 'clean';
  }

  private async file(change: FileChange, kind: Kind): Promise<'clean' | 'conflict'> {
    const rel = change.path;
    const executable = change.after === 'executable';
    const modifies = change.status === 'modified' || change.status === 'mode-changed';
    const theirs = await this.blob(change.repoPath, change.newOid);
    if (kind === 'absent') {
      if (modifies) throw new Refusal('it was deleted from your folder since the run began; not recreated');
      this.ops.push({ op: 'write', rel, content: theirs, executable, mode: null });
      this.overlay.set(rel, 'file');
      return 'clean';
    }
    if (kind !== 'file') throw new Refusal(`it is ${WORDS[kind]} in your folder; not replaced`);
    const stats = await lstat(this.abs(rel));
    const current = stats.mode & 0o7777;
    const mode = executable ? current | ((current & 0o444) >> 2) : current & ~0o111;
    const ours = await readFile(this.abs(rel));
    if (ours.equals(theirs)) {
      if (mode !== current) this.ops.push({ op: 'chmod', rel, mode });
      return 'clean';
    }
    // A file created on both sides merges against nothing: both versions are kept, marked.
    const base = modifies ? await this.blob(change.repoPath, change.oldOid) : Buffer.alloc(0);
    if (modifies && ours.equals(base)) {
      this.ops.push({ op: 'write', rel, content: theirs, executable, mode });
      return 'clean';
    }
    if (binary(ours) || binary(base) || binary(theirs)) {
      throw new Refusal('it is binary and was changed in your folder too; not merged');
    }
    const merged = await this.merge(ours, base, theirs);
    this.ops.push({ op: 'write', rel, content: merged.content, executable, mode });
    return merged.conflicts ? 'conflict' : 'clean';
  }

  /** `git merge-file`: the user's version, the start, the winner's; conflicts marked `ours`/`theirs`. */
  private async merge(ours: Buffer, base: Buffer, theirs: Buffer) {
    const n = ++this.merges;
    const names = ['ours', 'base', 'theirs'].map((name) => path.join(this.side.scratch, `${n}.${name}`));
    await mkdir(this.side.scratch, { recursive: true });
    await Promise.all([ours, base, theirs].map((content, i) => writeFile(names[i] as string, content)));
    try {
      const result = await gitRaw(
        ['merge-file', '-p', '-L', 'ours', '-L', 'base', '-L', 'theirs', ...names],
        { ...this.side.git, cwd: this.side.scratch },
      );
      if (result.code > 127) throw new Error(`git merge-file failed: ${result.stderr.trim()}`);
      return { content: result.stdout, conflicts: result.code > 0 };
    } finally {
      await Promise.all(names.map((name) => rm(name, { force: true })));
    }
  }

  /**
   * Plans removing the folder `rel` once the planned removals have emptied it; returns the first entry
   * that would remain (a file the review does not remove, the user's own new file), else null.
   */
  private async clearFolder(rel: string): Promise<string | null> {
    for (const name of (await readdir(this.abs(rel))).sort()) {
      const child = `${rel}/${name}`;
      const kind = await this.kind(child);
      if (kind === 'absent') continue;
      if (kind !== 'dir') return child;
      const blocking = await this.clearFolder(child);
      if (blocking !== null) return blocking;
    }
    this.ops.push({ op: 'rmdir', rel });
    this.overlay.set(rel, 'absent');
    return null;
  }
}

/** The path a change removes from the user's folder first, if any. */
function removedPath(change: FileChange): { rel: string; repoPath: string } | null {
  if (change.status === 'renamed') return { rel: change.from as string, repoPath: change.fromRepo as string };
  if (change.status === 'deleted') return { rel: change.path, repoPath: change.repoPath };
  if (change.status === 'type-changed' && change.before !== 'folder' && change.before !== null) {
    return { rel: change.path, repoPath: change.repoPath };
  }
  return null;
}
