import type { Phase } from '../../types/events.js';

/** A folder of the user's own made visible to every agent (`orchestrator.context_paths`). */
export interface ContextPathRule {
  /** Absolute, real (symlinks resolved) path of a folder. */
  path: string;
  /** `write`: the final presenter may write here; during coordination every context path is read-only. */
  permission: 'read' | 'write';
  /** Absolute real paths (files or folders) under `path` that nobody may write, ever. */
  protectedPaths: readonly string[];
  /**
   * The agent's own isolated copy of a `write` context path (`write_mode: worktree`: a git worktree, or
   * a copy outside git): writable in every phase, since nothing reaches the user's folder unreviewed.
   */
  ownCopy?: boolean;
}

/** Everything one agent may touch on disk. All paths absolute and real (symlinks resolved). */
export interface PathPolicy {
  /** The agent's own workspace: readable and writable in every phase. Relative paths resolve here. */
  workspace: string;
  /** Where the other agents' answer snapshots appear for this agent (read-only), if anywhere. */
  peerSnapshots: string | null;
  contextPaths: readonly ContextPathRule[];
  /** More read-only folders (e.g. the previous turn's winning workspace). */
  readOnly: readonly string[];
  /**
   * Real paths no tool may read or write, wherever they are: asked with the real path of every path
   * checked (and of each file a folder copy meets). Null: usable.
   */
  denied?: PathDenial;
}

/**
 * Why nothing may use a real path: `why` follows the path in the refusal ("may not be read …");
 * `byRule` when a permission rule says so (the rules engine, which names the rule in the audit ledger,
 * then has the first word on the call), not a fixed check such as a `.env` file massgen loaded.
 */
export type PathDenial = (realPath: string) => { why: string; byRule: boolean } | null;

export type Access = 'read' | 'write';

/** The verdict on one path. `realPath` is what the caller must then use (never the string it was given). */
export type PathDecision =
  | { allowed: true; realPath: string }
  /** `byRule`: refused by {@link PathPolicy.denied} for a permission rule. */
  | { allowed: false; reason: string; byRule?: boolean };

/**
 * Decides whether `requested` (absolute, or relative to the workspace) may be read or written in
 * `phase`. Implemented in `check-path.ts`; this is the contract every path-taking tool relies on.
 */
export type CheckPath = (requested: string, access: Access, phase: Phase) => Promise<PathDecision>;
