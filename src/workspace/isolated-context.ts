import { existsSync, realpathSync, rmSync } from 'node:fs';
import { copyFile, mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ChangedFile } from '../types/permission-events.js';
import { applyOutcome, parseFilePatch, parseNameStatus, type ApplyOutcome } from './change-set.js';
import { git, gitOk, gitSync, literal, type GitOptions } from './git.js';

/**
 * One `write` context path with `write_mode: worktree` (or `isolated`), for one run: the folder as it
 * was when the run began, kept as a commit (its tracked and untracked files, not ignored ones, not
 * `.massgen`), and one checkout of that commit per agent on its own branch `massgen/<run>/<agent>` —
 * a git worktree of the user's repository, or, outside git (and with `isolated`), of a private
 * repository next to the checkouts. The user's own checkout, index and branches are never touched until
 * the winner's changes are applied, file by file, with `git apply --3way`.
 */

export interface IsolatedContextOptions {
  /** The user's folder (real path). */
  original: string;
  mode: 'worktree' | 'isolated';
  /** Real paths under `original` that are never written (`protected_paths`). */
  protectedPaths: readonly string[];
  /** `.massgen/worktrees/<run>`: this run's checkouts live here. */
  runDir: string;
  /** Names the branches: `massgen/<runKey>/<agent>`. */
  runKey: string;
  /** Position among the run's isolated paths (names files and a second branch of one agent). */
  index: number;
  /** The project's `.massgen`, left out of the snapshot when it lies inside. */
  massgenDir: string;
  /** An empty folder: `core.hooksPath` for every git call. */
  hooksPath: string;
}

/** One agent's checkout. */
export interface AgentCopy {
  agentId: string;
  /** The checkout's root (a worktree of the whole repository). */
  root: string;
  /** Where the agent sees the context path: `root` plus the path's place in the repository. */
  view: string;
  branch: string;
  /** The worktree's own git folder, read when it was made: massgen never trusts the `.git` file the agent can see. */
  gitDir: string;
}

/** One changed file, with its path in the repository (what git is given) beside its path in the folder. */
export interface FileChange extends ChangedFile {
  repoPath: string;
  patch: string;
}

/** Ref names from agent ids (which may hold `.`): no `..`, no trailing `.` or `.lock`. */
const refSafe = (id: string) =>
  id
    .replace(/\.\.+/g, '_')
    .replace(/\.lock$/, '_lock')
    .replace(/\.$/, '_');

const posix = (p: string) => p.split(path.sep).join('/');

export class IsolatedContext {
  private readonly copies = new Map<string, AgentCopy>();
  private applied = 0;

  private constructor(
    private readonly options: IsolatedContextOptions,
    /** `worktree`: the user's repository; `copy`: a private repository (a folder outside git, or `isolated`). */
    readonly kind: 'worktree' | 'copy',
    /** Git options for commands on the user's side: the repository (or the private one over the folder). */
    private readonly main: GitOptions,
    /** The repository's top folder (`original` itself for a copy). */
    private readonly top: string,
    /** `original` relative to `top` (posix, `''` for the same folder). */
    private readonly sub: string,
    /** The commit holding the folder as the run began. */
    readonly base: string,
  ) {}

  get original(): string {
    return this.options.original;
  }

  /** Snapshots the folder as it is now (a commit no branch points to) and picks worktree or copy. */
  static async create(options: IsolatedContextOptions): Promise<IsolatedContext> {
    const { original, hooksPath, runDir, index } = options;
    await mkdir(runDir, { recursive: true });
    let top: string | null = null;
    if (options.mode === 'worktree') {
      const found = await git(['rev-parse', '--show-toplevel'], { cwd: original, hooksPath });
      if (found.code === 0 && found.stdout.trim() !== '') {
        const candidate = realpathSync(found.stdout.trim());
        const rel = posix(path.relative(candidate, original));
        // A folder git ignores would be missing from the snapshot: it is copied instead.
        const ignored =
          rel !== '' && (await git(['check-ignore', '-q', rel], { cwd: candidate, hooksPath })).code === 0;
        if (!ignored) top = candidate;
      }
    }
    let main: GitOptions;
    let kind: 'worktree' | 'copy';
    if (top !== null) {
      kind = 'worktree';
      main = { cwd: top, hooksPath };
    } else {
      kind = 'copy';
      top = original;
      const shadow = path.join(runDir, `repo-${index + 1}`);
      await gitOk(['init', '--quiet', shadow], { cwd: runDir, hooksPath });
      main = {
        cwd: original,
        hooksPath,
        env: { GIT_DIR: path.join(shadow, '.git'), GIT_WORK_TREE: original },
      };
    }
    const sub = posix(path.relative(top, original));
    const indexFile = path.join(runDir, `base-${index + 1}.index`);
    const withIndex: GitOptions = { ...main, env: { ...main.env, GIT_INDEX_FILE: indexFile } };
    const massgenRel = posix(path.relative(top, options.massgenDir));
    const exclude =
      massgenRel !== '' && !massgenRel.startsWith('..') && !path.isAbsolute(massgenRel)
        ? [`:(exclude)${massgenRel}`]
        : [];
    const head = kind === 'worktree' ? await git(['rev-parse', '--verify', '-q', 'HEAD'], main) : null;
    const parent = head && head.code === 0 ? ['-p', head.stdout.trim()] : [];
    if (kind === 'worktree') {
      // Starting from the user's index (a copy) spares hashing every unchanged file again.
      const own = path.resolve(top, await gitOk(['rev-parse', '--git-path', 'index'], main));
      if (existsSync(own)) await copyFile(own, indexFile);
    }
    await gitOk(['add', '-A', '--', '.', ...exclude], { ...withIndex, cwd: top });
    const tree = await gitOk(['write-tree'], withIndex);
    const base = await gitOk(
      ['commit-tree', tree, ...parent, '-m', 'massgen: the folder as the run began'],
      main,
    );
    await rm(indexFile, { force: true });
    return new IsolatedContext(options, kind, main, top, sub, base);
  }

  /** Adds the agent's checkout of the snapshot on its own branch. */
  async addCopy(agentId: string): Promise<AgentCopy> {
    const { runDir, runKey, index, original } = this.options;
    const name = path.basename(original) || 'root';
    const root = path.join(runDir, agentId, index === 0 ? name : `${name}-${index + 1}`);
    const branch = `massgen/${runKey}/${refSafe(agentId)}${index === 0 ? '' : `-${index + 1}`}`;
    await mkdir(path.dirname(root), { recursive: true });
    await gitOk(['worktree', 'add', '--quiet', '-b', branch, root, this.base], this.mainWithout());
    const real = await realpath(root);
    const gitDir = path.resolve(
      real,
      await gitOk(['rev-parse', '--git-dir'], { cwd: real, hooksPath: this.options.hooksPath }),
    );
    const copy: AgentCopy = {
      agentId,
      root: real,
      view: this.sub === '' ? real : path.join(real, this.sub),
      branch,
      gitDir,
    };
    this.copies.set(agentId, copy);
    return copy;
  }

  copyOf(agentId: string): AgentCopy | null {
    return this.copies.get(agentId) ?? null;
  }

  /** The protected paths as they are in the agent's checkout. */
  protectedIn(copy: AgentCopy): string[] {
    return [
      ...this.options.protectedPaths.map((p) => path.join(copy.view, path.relative(this.original, p))),
      // The link to the repository: an agent rewriting it could point massgen's commits elsewhere.
      path.join(copy.root, '.git'),
    ];
  }

  /** Commits the agent's checkout to its branch (nothing when unchanged). */
  async commit(agentId: string, message: string): Promise<void> {
    const copy = this.copies.get(agentId);
    if (!copy) return;
    const inCopy: GitOptions = {
      cwd: copy.root,
      hooksPath: this.options.hooksPath,
      env: { GIT_DIR: copy.gitDir, GIT_WORK_TREE: copy.root },
    };
    await gitOk(['add', '-A', '--', '.'], inCopy);
    const staged = await git(['diff', '--cached', '--quiet'], inCopy);
    if (staged.code === 0) return;
    await gitOk(['commit', '--quiet', '--no-verify', '-m', message], inCopy);
  }

  /** What the agent's branch changed in the folder since the run began, file by file. */
  async changes(agentId: string): Promise<FileChange[]> {
    const copy = this.copies.get(agentId);
    if (!copy) return [];
    const scope = this.sub === '' ? '.' : this.sub;
    const names = await gitOk(
      ['diff', '--name-status', '-z', '--no-renames', this.base, copy.branch, '--', scope],
      this.main,
    );
    const files: FileChange[] = [];
    for (const { status, path: repoPath } of parseNameStatus(names)) {
      const shown = this.sub === '' ? repoPath : posix(path.relative(this.sub, repoPath));
      if (this.isProtected(shown)) continue;
      const patch = (
        await git(
          [
            'diff',
            '--no-color',
            '--no-ext-diff',
            '--no-renames',
            '--full-index',
            '--binary',
            this.base,
            copy.branch,
            '--',
            literal(repoPath),
          ],
          this.main,
        )
      ).stdout;
      files.push({ path: shown, repoPath, status, patch, ...parseFilePatch(patch) });
    }
    return files;
  }

  private isProtected(relPath: string): boolean {
    const absolute = path.join(this.original, relPath);
    return this.options.protectedPaths.some((p) => absolute === p || absolute.startsWith(p + path.sep));
  }

  /**
   * Applies one file's patch to the user's folder with `git apply --3way`, against a private index
   * (the snapshot plus the file as it is now), so the user's own index and other files stay as they
   * are: a file changed since the run began is merged, and a conflict is left marked, never overwritten.
   */
  async apply(change: FileChange): Promise<ApplyOutcome> {
    const n = ++this.applied;
    const indexFile = path.join(this.options.runDir, `apply-${this.options.index + 1}-${n}.index`);
    const patchFile = path.join(this.options.runDir, `apply-${this.options.index + 1}-${n}.diff`);
    const options: GitOptions = {
      ...this.main,
      cwd: this.top,
      env: { ...this.main.env, GIT_INDEX_FILE: indexFile },
    };
    try {
      await writeFile(patchFile, change.patch);
      await gitOk(['read-tree', this.base], options);
      // The file as it is in the folder now (missing and ignored files are fine: nothing to add).
      await git(['add', '-A', '--', literal(change.repoPath)], options);
      const result = await git(['apply', '--3way', '--whitespace=nowarn', patchFile], options);
      return applyOutcome(result.code, result.stderr);
    } finally {
      await rm(indexFile, { force: true });
      await rm(patchFile, { force: true });
    }
  }

  /** Git options for the repository without the work tree (worktree commands, diffs between commits). */
  private mainWithout(): GitOptions {
    if (this.kind === 'worktree') return this.main;
    const { GIT_DIR } = this.main.env ?? {};
    return {
      cwd: this.options.runDir,
      hooksPath: this.options.hooksPath,
      env: { GIT_DIR: GIT_DIR as string },
    };
  }

  /** The checkouts and their branches in the user's repository go; a private repository goes with `runDir`. */
  async remove(): Promise<void> {
    if (this.kind !== 'worktree') return;
    for (const copy of this.copies.values()) {
      await git(['worktree', 'remove', '--force', copy.root], this.main);
      await rm(copy.root, { recursive: true, force: true });
    }
    // A checkout git could not remove (its `.git` link broken) is pruned before its branch goes.
    await git(['worktree', 'prune'], this.main);
    for (const copy of this.copies.values()) await git(['branch', '-D', copy.branch], this.main);
  }

  /** {@link remove}, synchronously, for process exit. */
  removeSync(): void {
    if (this.kind !== 'worktree') return;
    for (const copy of this.copies.values()) {
      gitSync(['worktree', 'remove', '--force', copy.root], this.main);
      try {
        if (existsSync(copy.root)) rmSync(copy.root, { recursive: true, force: true });
      } catch {
        // Best effort at exit.
      }
    }
    gitSync(['worktree', 'prune'], this.main);
    for (const copy of this.copies.values()) gitSync(['branch', '-D', copy.branch], this.main);
  }

  /** The checkouts, for a kept run (`--keep-worktrees`). */
  list(): AgentCopy[] {
    return [...this.copies.values()];
  }
}
