import { z } from 'zod';

/**
 * The permission engine's and the change review's part of the run event stream (docs/permissions.md):
 * every decision on a tool call when the run has permission rules or holds calls for approval (the
 * log writer appends each to `permissions.jsonl`, the audit ledger), and the winner's changes to a
 * `write_mode: worktree` context path — proposed for review, then applied; and a `Stop` hook's
 * `block` (docs/hooks.md), ledgered with them. Joined into
 * `RunEventSchema` in events.ts.
 */

const base = {
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  ts: z.number(),
};
const agentBase = { ...base, agentId: z.string() };

/** One permission rule, as decisions and questions name it. */
export const PermissionRuleRefSchema = z.object({
  /** Where it is written: `permissions[2]` (team-wide) or `agents[0].permissions[1]`. */
  label: z.string(),
  /** Its position in that list, from 0. */
  index: z.int().nonnegative(),
  scope: z.enum(['agent', 'team']),
  action: z.enum(['allow', 'ask', 'deny']),
  /** The rule in one line, e.g. `deny write_file path=secrets/**`. */
  text: z.string(),
});
export type PermissionRuleRef = z.infer<typeof PermissionRuleRefSchema>;

/**
 * Who decided: a permission `rule`, a PreToolUse `hook` (docs/hooks.md), the fixed `guard` (the command deny-list, the path checks), the
 * `default` (no rule matched and calls run without asking), a person at the `terminal`, in the `web`
 * UI or through the `file` handshake, the `timeout` of an unanswered question, the library `caller`,
 * or `none` (nobody could be asked).
 */
export const DecisionSourceSchema = z.enum([
  'rule',
  'hook',
  'guard',
  'default',
  'terminal',
  'web',
  'file',
  'timeout',
  'caller',
  'none',
]);
export type DecisionSource = z.infer<typeof DecisionSourceSchema>;

/** The final word on one tool call: it ran, or it was refused (the model saw the reason). */
export const ToolPermissionDecidedSchema = z.object({
  ...agentBase,
  type: z.literal('tool.permission.decided'),
  phase: z.enum(['coordination', 'presentation']),
  callId: z.string(),
  toolName: z.string(),
  /** As the model gave them, with the run's secrets masked. */
  arguments: z.unknown(),
  decision: z.enum(['allow', 'deny']),
  by: DecisionSourceSchema,
  /** The rule that matched, when one did. */
  rule: PermissionRuleRefSchema.optional(),
  /** The hook that decided or changed the call's input (`hooks.PreToolUse[0].hooks[0]`), when one did. */
  hook: z.string().optional(),
  reason: z.string().optional(),
});

/**
 * A Stop hook's `block`: `obeyed` when the run went on (its `continuation`, from 1), not when the run
 * could not (it had not completed, or had gone on as often as it may). Ledgered beside the tool calls'
 * decisions (`permissions.jsonl`).
 */
export const StopHookDecidedSchema = z.object({
  ...base,
  type: z.literal('hook.stop.decided'),
  hook: z.string(),
  decision: z.literal('block'),
  reason: z.string(),
  obeyed: z.boolean(),
  /** How many times the run has gone on for its Stop hooks, this one included when obeyed. */
  continuation: z.int().nonnegative(),
});

/** One hunk of a file's diff: its `@@ … @@` header and its lines (with their ` `, `+`, `-` marks). */
export const ChangeHunkSchema = z.object({ header: z.string(), lines: z.string() });

/** What a path is on one side of a change: a file (executable or not), a link, a folder, or a git repository of its own. */
export const EntryKindSchema = z.enum(['file', 'executable', 'symlink', 'folder', 'repository']);
export type EntryKind = z.infer<typeof EntryKindSchema>;

export const ChangedFileSchema = z.object({
  /** Relative to the context path. */
  path: z.string(),
  /**
   * `renamed`: moved from {@link from} (perhaps edited too); `mode-changed`: only the executable bit;
   * `type-changed`: a file, link, folder or repository became another kind (`before` → `after`).
   */
  status: z.enum(['added', 'modified', 'deleted', 'renamed', 'mode-changed', 'type-changed']),
  /** A renamed file's old path (relative to the context path). */
  from: z.string().optional(),
  /** What the path was when the run began (null: nothing). */
  before: EntryKindSchema.nullable().optional(),
  /** What the path is in the winner's checkout (null: nothing). */
  after: EntryKindSchema.nullable().optional(),
  /** A symbolic link's target, as the link holds it. */
  linkTarget: z.string().optional(),
  /**
   * Why "apply all" leaves this change out (a link that leads outside the folder, a repository of its
   * own): it is applied only when a reviewer picks this path by name, if at all.
   */
  pickOnly: z.string().optional(),
  binary: z.boolean(),
  additions: z.int().nonnegative(),
  deletions: z.int().nonnegative(),
  hunks: z.array(ChangeHunkSchema),
});
export type ChangedFile = z.infer<typeof ChangedFileSchema>;

/** The winner's changes to one isolated context path, waiting for review (or applied at once). */
export const ChangesProposedSchema = z.object({
  ...agentBase,
  type: z.literal('changes.proposed'),
  /** Answer `respondToReview` (or the web UI, the file handshake) with this id. */
  reviewId: z.string(),
  /** The user's folder the changes are for. */
  contextPath: z.string(),
  /** `worktree`: a git worktree of the user's repository; `copy`: a copy of a folder outside git. */
  isolation: z.enum(['worktree', 'copy']),
  /** The winner's branch (`massgen/<run>/<agent>`), for a git worktree. */
  branch: z.string().nullable(),
  files: z.array(ChangedFileSchema),
  /** The whole patch in the log folder (unmasked, for `git apply`), when logging is on. */
  diffFile: z.string().nullable(),
  /** True while the run waits for someone to choose which files to apply. */
  awaitingReview: z.boolean(),
});

/** A checkout left in place so no work is lost, and how to finish by hand. */
export const KeptCheckoutSchema = z.object({
  agentId: z.string(),
  /** The checkout's folder (a git worktree, or a copy's checkout). */
  path: z.string(),
  /** Its branch: in the user's repository, or in the copy's private one. */
  branch: z.string(),
  /** Shell commands, one per line, that show and apply the changes by hand and then remove the checkout. */
  commands: z.array(z.string()),
});
export type KeptCheckout = z.infer<typeof KeptCheckoutSchema>;

/** What became of a proposal: files applied (some with conflict markers), failed or left out. */
export const ChangesAppliedSchema = z.object({
  ...agentBase,
  type: z.literal('changes.applied'),
  reviewId: z.string(),
  contextPath: z.string(),
  /**
   * Who chose: `default` (no review asked: everything applied), `flag` (`--review=all|none`), a person
   * at the `terminal`, in the `web` UI or through the `file` handshake, the library `caller`, the
   * `timeout` of an unanswered review, or `cancelled`.
   */
  by: z.enum(['default', 'flag', 'terminal', 'web', 'file', 'caller', 'timeout', 'cancelled']),
  /** Applied cleanly. */
  applied: z.array(z.string()),
  /** Applied with git's three-way merge, leaving conflict markers to resolve. */
  conflicts: z.array(z.string()),
  failed: z.array(z.object({ path: z.string(), message: z.string() })),
  /** Not chosen. */
  skipped: z.array(z.string()),
  /**
   * The winner's checkout and branch, kept because its changes could not all be brought back (a refused
   * or failed apply, a repository of its own), with the commands that apply them by hand.
   */
  kept: KeptCheckoutSchema.nullable().optional(),
});

export const permissionEventSchemas = [
  ToolPermissionDecidedSchema,
  StopHookDecidedSchema,
  ChangesProposedSchema,
  ChangesAppliedSchema,
] as const;
