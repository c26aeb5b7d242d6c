import { existsSync, realpathSync, rmSync } from 'node:fs';
import { copyFile, mkdir, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import type { KeptCheckout } from '../types/permission-events.js';
import { planApply } from './apply-plan.js';
import { runApply } from './apply-transaction.js';
import { readChanges, type FileChange } from './branch-changes.js';
import { byHandCommands } from './by-hand.js';
import { git, gitOk, gitSync, type GitOptions } from './git.js';
import { excluding, nestedRepositories } from './nested-repos.js';

export type { FileChange } from './branch-changes.js';

/**
 * One `write` context path with `write_mode: worktree` (or `isolated`), for one run: the folder as it
 * was when the run began, kept as a commit (its tracked and untracked files, not ignored ones, not
 * `.massgen`), and one checkout of that commit per agent on its own branch `massgen/<run>/<agent>` —
 * a git worktree of the user's repository, or, outside git (and with `isolated`), of a private
 * repository next to the checkouts. The user's own checkout, index and branches are never touched; the
 * winner's chosen changes are checked and then written all together or not at all ({@link apply}). A
 * folder holding a repository of its own (an agent's `git init`) is never committed as a gitlink: it
 * stays in the checkout, which is then kept.
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
  /** Folders of the checkout holding a repository of their own at the last commit (repository paths). */
  nested: string[];
}

/** What applying the chosen changes did: all of them, or (with `failed` set) none. */
export interface ApplyResult {
  applied: string[];
  conflicts: string[];
  failed: { path: string; message: string }[];
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
  /** Agents whose checkout (and branch) stays when the run ends: their changes did not all come back. */
  private readonly retained = new Set<string>();
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
    // A repository of the user's own inside the folder (no commit yet: git would refuse it) is left out.
    const nested = excluding(await nestedRepositories({ ...withIndex, cwd: top }, ['.', ...exclude]));
    await gitOk(['add', '-A', '--', '.', ...exclude, ...nested], { ...withIndex, cwd: top });
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
      nested: [],
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
    // A folder the agent made a repository of its own (`git init`) would become a gitlink, or fail the
    // commit while it has no commit: it stays out, is shown for what it is, and keeps the checkout.
    copy.nested = await nestedRepositories(inCopy);
    await gitOk(['add', '-A', '--', '.', ...excluding(copy.nested)], inCopy);
    const staged = await git(['diff', '--cached', '--quiet'], inCopy);
    if (staged.code === 0) return;
    await gitOk(['commit', '--quiet', '--no-verify', '-m', message], inCopy);
  }

  /** What the agent's branch changed in the folder since the run began, file by file. */
  async changes(agentId: string): Promise<FileChange[]> {
    const copy = this.copies.get(agentId);
    if (!copy) return [];
    return readChanges({
      git: this.main,
      base: this.base,
      branch: copy.branch,
      sub: this.sub,
      folder: this.original,
      isProtected: (rel) => this.isProtected(rel),
      nested: copy.nested,
    });
  }

  private isProtected(relPath: string): boolean {
    const absolute = path.join(this.original, relPath);
    return this.options.protectedPaths.some((p) => absolute === p || absolute.startsWith(p + path.sep));
  }

  /**
   * Applies the chosen changes to the user's folder, all or none: each is checked first against the
   * folder as it is now (apply-plan.ts) — one refusal and nothing is written — then written with every
   * step undone on a failure (apply-transaction.ts). A file changed on both sides is merged three-way,
   * a conflict left marked, never overwritten. The user's index and other files are not touched.
   */
  async apply(chosen: readonly FileChange[]): Promise<ApplyResult> {
    if (chosen.length === 0) return { applied: [], conflicts: [], failed: [] };
    const scratch = path.join(this.options.runDir, `apply-${this.options.index + 1}-${++this.applied}`);
    const heldBack = (reason: string) =>
      chosen.map((c) => ({ path: c.path, message: `held back: ${reason}` }));
    try {
      const plan = await planApply(
        { folder: this.original, git: this.main, checkout: this.kind === 'worktree', sub: this.sub, scratch },
        chosen,
      );
      if (plan.refused.length > 0) {
        const refused = new Set(plan.refused.map((r) => r.path));
        const others = heldBack(
          `${plan.refused.length === 1 ? 'another chosen change' : `${plan.refused.length} other chosen changes`} could not be applied safely, and changes are applied all together or not at all`,
        );
        return {
          applied: [],
          conflicts: [],
          failed: [...plan.refused, ...others.filter((o) => !refused.has(o.path))],
        };
      }
      await runApply(this.original, plan.ops);
      return { applied: plan.applied, conflicts: plan.conflicts, failed: [] };
    } catch (error) {
      return {
        applied: [],
        conflicts: [],
        failed: heldBack(`applying failed: ${error instanceof Error ? error.message : String(error)}`),
      };
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  /**
   * Keeps the agent's checkout and branch when the run ends (their changes did not all come back), and
   * says where they are and how to apply `paths` (repository paths; none: everything) by hand.
   */
  retain(agentId: string, paths: readonly string[] = []): KeptCheckout | null {
    const copy = this.copies.get(agentId);
    if (!copy) return null;
    this.retained.add(agentId);
    const { GIT_DIR } = this.main.env ?? {};
    return {
      agentId,
      path: copy.root,
      branch: copy.branch,
      commands: byHandCommands({
        kind: this.kind,
        top: this.top,
        ...(this.kind === 'copy' ? { gitDir: GIT_DIR as string, runDir: this.options.runDir } : {}),
        base: this.base,
        branch: copy.branch,
        root: copy.root,
        sub: this.sub,
        paths,
        nested: copy.nested,
      }),
    };
  }

  /** True when some checkout stays when the run ends. */
  get retains(): boolean {
    return this.retained.size > 0;
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

  /** The checkouts not retained, with their branches (a private repository's go with `runDir`). */
  private removable(): AgentCopy[] {
    return [...this.copies.values()].filter((copy) => !this.retained.has(copy.agentId));
  }

  /**
   * The checkouts and their branches go, except those retained; a copy's private repository goes with
   * `runDir` (left in place while it holds a retained checkout).
   */
  async remove(): Promise<void> {
    if (this.kind !== 'worktree' && !this.retains) return;
    const options = this.mainWithout();
    for (const copy of this.removable()) {
      await git(['worktree', 'remove', '--force', copy.root], options);
      await rm(copy.root, { recursive: true, force: true });
    }
    // A checkout git could not remove (its `.git` link broken) is pruned before its branch goes.
    await git(['worktree', 'prune'], options);
    for (const copy of this.removable()) await git(['branch', '-D', copy.branch], options);
  }

  /** {@link remove}, synchronously, for process exit. */
  removeSync(): void {
    if (this.kind !== 'worktree' && !this.retains) return;
    const options = this.mainWithout();
    for (const copy of this.removable()) {
      gitSync(['worktree', 'remove', '--force', copy.root], options);
      try {
        if (existsSync(copy.root)) rmSync(copy.root, { recursive: true, force: true });
      } catch {
        // Best effort at exit.
      }
    }
    gitSync(['worktree', 'prune'], options);
    for (const copy of this.removable()) gitSync(['branch', '-D', copy.branch], options);
  }

  /** The checkouts retained, for the run's result. */
  kept(): AgentCopy[] {
    return [...this.copies.values()].filter((copy) => this.retained.has(copy.agentId));
  }

  /** The checkouts, for a kept run (`--keep-worktrees`). */
  list(): AgentCopy[] {
    return [...this.copies.values()];
  }
}
