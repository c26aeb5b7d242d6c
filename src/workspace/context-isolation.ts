import { rmSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RunEventOf } from '../types/events.js';
import type { KeptCheckout } from '../types/permission-events.js';
import type { ConcludeContext } from '../types/workspace.js';
import { registerExitCleanup } from '../util/child-reaper.js';
import { chosenFiles } from './change-set.js';
import type { AgentCopy, FileChange, IsolatedContext } from './isolated-context.js';

/**
 * The run's isolated context paths (`write_mode: worktree` / `isolated`, docs/permissions.md): one
 * {@link IsolatedContext} per path, one checkout per agent with a workspace. After the final
 * presentation the winner's changes are proposed, reviewed through a {@link Reviewer}, applied all
 * together or not at all, and every checkout and branch removed — at the end of the run, or, if the
 * process dies first, by an exit handler — except those to be kept: all with `--keep-worktrees`, and
 * the winner's whenever its changes did not all come back (a refused or failed apply, a repository of its
 * own in it), so no work is lost.
 */

/** A `write` context path to isolate. */
export interface IsolationSpec {
  /** Real path of the user's folder. */
  path: string;
  mode: 'worktree' | 'isolated';
  protectedPaths: readonly string[];
}

/** Who chose which files to apply (`changes.applied`'s `by`). */
export type ReviewSource = RunEventOf<'changes.applied'>['by'];

/** What a review is asked about. */
export interface ReviewRequest {
  reviewId: string;
  contextPath: string;
  /** Relative to the context path. */
  files: readonly string[];
  /** The winner's agent id. */
  agentId: string;
}

export interface ReviewDecision {
  files: 'all' | 'none' | readonly string[];
  by: ReviewSource;
}

/** Decides which of the winner's changed files are applied. */
export interface Reviewer {
  /** False when the decision comes at once (no review asked, `--review=all|none`). */
  readonly awaitsReview: boolean;
  review(request: ReviewRequest, signal: AbortSignal): Promise<ReviewDecision>;
}

/** What became of one isolated path's changes (for the run's result). */
export interface ChangesOutcome {
  reviewId: string;
  contextPath: string;
  by: ReviewSource;
  applied: string[];
  conflicts: string[];
  failed: { path: string; message: string }[];
  skipped: string[];
  /** The whole patch in the log folder, or null. */
  diffFile: string | null;
  /** The winner's checkout, kept because its changes did not all come back; null when removed. */
  kept: KeptCheckout | null;
}

export interface ContextIsolationOptions {
  massgenDir: string;
  runKey: string;
  specs: readonly IsolationSpec[];
  /** Agents with a workspace: each gets a checkout of every isolated path. */
  agentIds: readonly string[];
  /** `--keep-worktrees`: leave checkouts and branches for inspection. */
  keep?: boolean;
}

/** One agent's view of an isolated path. */
export interface IsolatedView {
  original: string;
  view: string;
  protectedPaths: string[];
  kind: 'worktree' | 'copy';
  branch: string;
}

export class ContextIsolation {
  readonly outcomes: ChangesOutcome[] = [];
  private disposed = false;
  private readonly unregister: () => void;

  private constructor(
    private readonly contexts: readonly IsolatedContext[],
    private readonly runDir: string,
    readonly keep: boolean,
  ) {
    this.unregister = keep ? () => {} : registerExitCleanup(() => this.disposeSync());
  }

  /** Snapshots every path and creates every checkout; on failure removes what it made and throws. */
  static async create(options: ContextIsolationOptions): Promise<ContextIsolation> {
    const runDir = path.join(options.massgenDir, 'worktrees', options.runKey);
    const hooksPath = path.join(runDir, '.no-hooks');
    await mkdir(hooksPath, { recursive: true });
    const contexts: IsolatedContext[] = [];
    const isolation = new ContextIsolation(contexts, runDir, options.keep === true);
    try {
      // Checkouts and their apply steps load only for a run with `write_mode: worktree` / `isolated`.
      const { IsolatedContext } = await import('./isolated-context.js');
      for (const [index, spec] of options.specs.entries()) {
        const context = await IsolatedContext.create({
          original: spec.path,
          mode: spec.mode,
          protectedPaths: spec.protectedPaths,
          runDir,
          runKey: options.runKey,
          index,
          massgenDir: options.massgenDir,
          hooksPath,
        });
        contexts.push(context);
        for (const agentId of options.agentIds) await context.addCopy(agentId);
      }
    } catch (error) {
      if (!isolation.keep) await isolation.dispose();
      throw error;
    }
    return isolation;
  }

  /** The agent's checkouts, one per isolated path. */
  viewsOf(agentId: string): IsolatedView[] {
    return this.contexts.flatMap((context) => {
      const copy = context.copyOf(agentId);
      return copy
        ? [
            {
              original: context.original,
              view: copy.view,
              protectedPaths: context.protectedIn(copy),
              kind: context.kind,
              branch: copy.branch,
            },
          ]
        : [];
    });
  }

  /** Every checkout, for a kept run. */
  checkouts(): (AgentCopy & { original: string })[] {
    return this.contexts.flatMap((c) => c.list().map((copy) => ({ ...copy, original: c.original })));
  }

  /** Commits the agent's checkouts to its branches. */
  async commit(agentId: string, message: string): Promise<void> {
    for (const context of this.contexts) await context.commit(agentId, message);
  }

  /**
   * Commits the agent's checkouts and writes what they changed so far into `folder` (an answer's
   * snapshot, so the other agents see the changes behind the answer): `massgen-changes/<name>.diff`.
   */
  async writeChanges(agentId: string, label: string, folder: string): Promise<void> {
    await this.commit(agentId, `answer ${label}`);
    for (const [index, context] of this.contexts.entries()) {
      const changes = await context.changes(agentId);
      if (changes.length === 0) continue;
      const dir = path.join(folder, 'massgen-changes');
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, diffName(context, index)), changes.map((c) => c.patch).join(''));
    }
  }

  /**
   * The winner's changes, path by path: committed, proposed (`changes.proposed`), reviewed, applied all
   * together or not at all (`changes.applied`). The whole patch goes to `diffDir` when given. When a
   * path's changes do not all come back, the winner's checkout and branch are kept and named; a path
   * that fails outright does not stop the others, and the error (naming what was kept) is thrown last.
   */
  async conclude(context: ConcludeContext, reviewer: Reviewer, diffDir: string | null): Promise<void> {
    const errors: string[] = [];
    for (const [index, isolated] of this.contexts.entries()) {
      try {
        await this.concludeOne(context, reviewer, diffDir, isolated, index);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const kept = isolated.retain(context.winnerId);
        errors.push(
          kept
            ? `${isolated.original}: ${message}; kept ${kept.agentId}'s checkout ${kept.path} (branch ${kept.branch}); to apply by hand: ${kept.commands.join(' ; ')}`
            : `${isolated.original}: ${message}`,
        );
      }
    }
    if (errors.length > 0) throw new Error(errors.join('\n'));
  }

  private async concludeOne(
    context: ConcludeContext,
    reviewer: Reviewer,
    diffDir: string | null,
    isolated: IsolatedContext,
    index: number,
  ): Promise<void> {
    const { winnerId } = context;
    const copy = isolated.copyOf(winnerId);
    if (!copy) return;
    await isolated.commit(winnerId, 'final answer');
    const changes = await isolated.changes(winnerId);
    if (changes.length === 0) return;
    const reviewId = `changes-${index + 1}`;
    let diffFile: string | null = null;
    if (diffDir !== null) {
      diffFile = path.join(diffDir, 'changes', `${reviewId}.diff`);
      await mkdir(path.dirname(diffFile), { recursive: true });
      await writeFile(diffFile, changes.map((c) => c.patch).join(''));
    }
    context.emit({
      type: 'changes.proposed',
      agentId: winnerId,
      reviewId,
      contextPath: isolated.original,
      isolation: isolated.kind,
      branch: isolated.kind === 'worktree' ? copy.branch : null,
      files: changes.map(shown),
      diffFile,
      awaitingReview: reviewer.awaitsReview,
    });
    const decision = await reviewer.review(
      { reviewId, contextPath: isolated.original, files: changes.map((c) => c.path), agentId: winnerId },
      context.signal,
    );
    const { chosen, skipped } = chosenFiles(changes, decision.files);
    const picked = changes.filter((c) => chosen.includes(c.path));
    const result = await isolated.apply(picked);
    // Work that did not come back stays in the winner's checkout: a failed apply, a repository of its own.
    const keep = result.failed.length > 0 || changes.some((c) => c.after === 'repository');
    const kept = keep
      ? isolated.retain(winnerId, result.failed.length > 0 ? picked.flatMap(repoPaths) : [])
      : null;
    const outcome = { ...result, skipped, kept };
    context.emit({
      type: 'changes.applied',
      agentId: winnerId,
      reviewId,
      contextPath: isolated.original,
      by: decision.by,
      ...outcome,
    });
    this.outcomes.push({ reviewId, contextPath: isolated.original, by: decision.by, diffFile, ...outcome });
  }

  /** The checkouts kept when the run ended: all with `keep`, else those whose changes did not all come back. */
  keptCheckouts(): (AgentCopy & { original: string })[] {
    return this.keep
      ? this.checkouts()
      : this.contexts.flatMap((c) => c.kept().map((copy) => ({ ...copy, original: c.original })));
  }

  /** Removes every checkout, branch and the run's folder (unless kept). Idempotent. */
  async dispose(): Promise<void> {
    if (this.disposed || this.keep) return;
    this.disposed = true;
    for (const context of this.contexts) await context.remove().catch(() => undefined);
    if (this.contexts.some((c) => c.retains)) await this.removeLeftovers();
    else await rm(this.runDir, { recursive: true, force: true });
    this.unregister();
  }

  private disposeSync(): void {
    if (this.disposed || this.keep) return;
    this.disposed = true;
    for (const context of this.contexts) context.removeSync();
    if (this.contexts.some((c) => c.retains)) return;
    try {
      rmSync(this.runDir, { recursive: true, force: true });
    } catch {
      // Best effort at exit.
    }
  }

  /** With a checkout kept, the run's folder stays; only the other agents' emptied folders go. */
  private async removeLeftovers(): Promise<void> {
    const keptAgents = new Set(this.keptCheckouts().map((c) => c.agentId));
    for (const entry of await readdir(this.runDir, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isDirectory() || keptAgents.has(entry.name) || entry.name.startsWith('repo-')) continue;
      if (entry.name === '.no-hooks') continue;
      await rm(path.join(this.runDir, entry.name), { recursive: true, force: true });
    }
  }
}

const diffName = (context: IsolatedContext, index: number) =>
  `${path.basename(context.original) || 'root'}${index === 0 ? '' : `-${index + 1}`}.diff`;

/** A change as the events show it: without what only git needs. */
function shown(change: FileChange): RunEventOf<'changes.proposed'>['files'][number] {
  const {
    repoPath: _r,
    fromRepo: _f,
    oldMode: _om,
    newMode: _nm,
    oldOid: _oo,
    newOid: _no,
    patch: _p,
    ...file
  } = change;
  return file;
}

/** The repository paths a change touches (a rename: both). */
const repoPaths = (change: FileChange) =>
  change.fromRepo === undefined ? [change.repoPath] : [change.fromRepo, change.repoPath];
