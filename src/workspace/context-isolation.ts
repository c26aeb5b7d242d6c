import { rmSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RunEventOf } from '../types/events.js';
import type { ConcludeContext } from '../types/workspace.js';
import { registerExitCleanup } from '../util/child-reaper.js';
import { chosenFiles } from './change-set.js';
import { IsolatedContext, type AgentCopy, type FileChange } from './isolated-context.js';

/**
 * The run's isolated context paths (`write_mode: worktree` / `isolated`, docs/permissions.md): one
 * {@link IsolatedContext} per path, one checkout per agent with a workspace. After the final
 * presentation the winner's changes are proposed, reviewed through a {@link Reviewer}, applied, and
 * every checkout and branch removed — at the end of the run, or, if the process dies first, by an exit
 * handler (unless they are to be kept).
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
   * The winner's changes, path by path: committed, proposed (`changes.proposed`), reviewed, applied with
   * git's three-way merge (`changes.applied`). The whole patch goes to `diffDir` when given.
   */
  async conclude(context: ConcludeContext, reviewer: Reviewer, diffDir: string | null): Promise<void> {
    const { winnerId } = context;
    for (const [index, isolated] of this.contexts.entries()) {
      const copy = isolated.copyOf(winnerId);
      if (!copy) continue;
      await isolated.commit(winnerId, 'final answer');
      const changes = await isolated.changes(winnerId);
      if (changes.length === 0) continue;
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
        files: changes.map(({ repoPath: _r, patch: _p, ...file }) => file),
        diffFile,
        awaitingReview: reviewer.awaitsReview,
      });
      const paths = changes.map((c) => c.path);
      const decision = await reviewer.review(
        { reviewId, contextPath: isolated.original, files: paths, agentId: winnerId },
        context.signal,
      );
      const outcome = await applyChosen(isolated, changes, chosenFiles(paths, decision.files));
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
  }

  /** Removes every checkout, branch and the run's folder (unless kept). Idempotent. */
  async dispose(): Promise<void> {
    if (this.disposed || this.keep) return;
    this.disposed = true;
    for (const context of this.contexts) await context.remove().catch(() => undefined);
    await rm(this.runDir, { recursive: true, force: true });
    this.unregister();
  }

  private disposeSync(): void {
    if (this.disposed || this.keep) return;
    this.disposed = true;
    for (const context of this.contexts) context.removeSync();
    try {
      rmSync(this.runDir, { recursive: true, force: true });
    } catch {
      // Best effort at exit.
    }
  }
}

const diffName = (context: IsolatedContext, index: number) =>
  `${path.basename(context.original) || 'root'}${index === 0 ? '' : `-${index + 1}`}.diff`;

async function applyChosen(
  isolated: IsolatedContext,
  changes: readonly FileChange[],
  { chosen, skipped }: { chosen: string[]; skipped: string[] },
): Promise<Pick<ChangesOutcome, 'applied' | 'conflicts' | 'failed' | 'skipped'>> {
  const applied: string[] = [];
  const conflicts: string[] = [];
  const failed: { path: string; message: string }[] = [];
  for (const change of changes) {
    if (!chosen.includes(change.path)) continue;
    const outcome = await isolated.apply(change);
    if (outcome.kind === 'applied') applied.push(change.path);
    else if (outcome.kind === 'conflict') conflicts.push(change.path);
    else failed.push({ path: change.path, message: outcome.message });
  }
  return { applied, conflicts, failed, skipped };
}
