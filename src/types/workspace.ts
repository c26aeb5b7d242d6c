import type { Phase, RunEventInput } from './events.js';

/** One answer whose files a viewer should see: by its author and the answer's label. */
export interface VisibleAnswer {
  agentId: string;
  anonymousId: string;
  /** `agent{N}.{k}`: which snapshot of the author's workspace. */
  label: string;
}

/**
 * What the orchestrator asks of the agents' workspaces (implemented by `src/workspace/`). The engine
 * stays pure: it only says when an answer is taken and what each agent sees; copying files is here.
 */
export interface WorkspaceHooks {
  /** Text for the agent's system prompt: its workspace, its peers' files, the context paths. Null: none. */
  describe(agentId: string, phase: Phase): string | null;
  /** Snapshots the author's workspace for the answer about to be accepted under `label`. */
  snapshot(agentId: string, label: string): Promise<void>;
  /** Shows `answers`' snapshots to `viewerId` (read-only), replacing what it saw before. */
  showPeers(viewerId: string, answers: readonly VisibleAnswer[]): Promise<void>;
  /** Rewrites the author's workspace paths in an answer so that the viewer can open them. */
  rewrite(content: string, authorId: string, viewerId: string): string;
  /**
   * After the final presentation, before `run.finished`: brings the winner's changes to isolated
   * context paths (`write_mode: worktree`) back — proposed (`changes.proposed`), reviewed, applied
   * (`changes.applied`). Events go out through `emit`; `signal` aborts on cancellation.
   */
  conclude?(context: ConcludeContext): Promise<void>;
}

/** Handed to {@link WorkspaceHooks.conclude}. */
export interface ConcludeContext {
  winnerId: string;
  emit(event: RunEventInput): void;
  signal: AbortSignal;
}
