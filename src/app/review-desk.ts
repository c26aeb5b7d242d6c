import type { RunResult } from '../types/run-result.js';
import type {
  ReviewDecision,
  ReviewRequest,
  Reviewer,
  ReviewSource,
  RunWorkspaces,
} from '../workspace/index.js';

/**
 * How the winner's changes to isolated context paths (`write_mode: worktree`) reach the user's
 * folder: `apply` — all of them, without asking (as the presenter's own writes would); `all` / `none`
 * — `--review=all|none`; `ask` — a person chooses (the terminal's review prompt, the web UI's review
 * panel, or the file handshake), through {@link ReviewDesk.respond}.
 */
export type ReviewMode = 'apply' | 'all' | 'none' | 'ask';

/** What a person chose: every file, none, or these (relative to the context path). */
export type ReviewChoice = ReviewDecision['files'];

/** Holds proposals under their review id until answered (mode `ask`), or answers at once. */
export class ReviewDesk {
  private readonly waiting = new Map<
    string,
    { request: ReviewRequest; resolve: (decision: ReviewDecision) => void }
  >();

  readonly reviewer: Reviewer;

  constructor(readonly mode: ReviewMode) {
    this.reviewer = {
      awaitsReview: mode === 'ask',
      review: (request, signal) => this.review(request, signal),
    };
  }

  private review(request: ReviewRequest, signal: AbortSignal): Promise<ReviewDecision> {
    if (this.mode === 'apply') return Promise.resolve({ files: 'all', by: 'default' });
    if (this.mode !== 'ask') return Promise.resolve({ files: this.mode, by: 'flag' });
    return new Promise<ReviewDecision>((resolve) => {
      const onAbort = () => {
        this.waiting.delete(request.reviewId);
        resolve({ files: 'none', by: 'cancelled' });
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(request.reviewId, {
        request,
        resolve: (decision) => {
          signal.removeEventListener('abort', onAbort);
          resolve(decision);
        },
      });
    });
  }

  /** Answers a waiting review; false when none waits under that id. */
  respond(reviewId: string, files: ReviewChoice, by: ReviewSource = 'caller'): boolean {
    const entry = this.waiting.get(reviewId);
    if (!entry) return false;
    this.waiting.delete(reviewId);
    entry.resolve({ files, by });
    return true;
  }

  /** The reviews waiting now. */
  pending(): ReviewRequest[] {
    return [...this.waiting.values()].map((w) => w.request);
  }
}

/** The winner's changes to isolated context paths, and the checkouts left (`--keep-worktrees`, or work that did not come back). */
export function isolationResult(
  workspaces: RunWorkspaces | null,
): Pick<RunResult, 'changes' | 'keptWorktrees'> {
  const isolated = workspaces?.isolatedPaths;
  if (!isolated) return {};
  const kept = isolated.keptCheckouts();
  return {
    changes: isolated.outcomes.map((o) => ({ ...o })),
    ...(kept.length > 0
      ? {
          keptWorktrees: kept.map((c) => ({
            agentId: c.agentId,
            contextPath: c.original,
            path: c.root,
            branch: c.branch,
          })),
        }
      : {}),
  };
}
