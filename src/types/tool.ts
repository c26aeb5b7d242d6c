import type { Phase, RunEventInput } from './events.js';
import type { MediaPart } from './media.js';
import type { ToolCall, ToolDefinition } from './messages.js';
import type { DecisionSource, PermissionRuleRef } from './permission-events.js';

/** Who is calling a tool and in which phase; tools use it for permissions and planning mode. */
export interface ToolContext {
  agentId: string;
  phase: Phase;
  signal: AbortSignal;
}

/** The text returned to the model. `isError` marks a tool-error result (the model sees it and may retry). */
export interface ToolResult {
  content: string;
  isError?: boolean;
  /**
   * Media for the model to see (an image read with `read_media`, a screenshot). Sent as media parts,
   * never as bytes in text; events record only their references. Dropped, with a note in `content`,
   * for a model that cannot take the kind.
   */
  media?: readonly MediaPart[];
  /**
   * Dollars the call spent at a provider (image, speech or video generation): added to the agent's
   * cost and the run's budget (`max_cost_usd`).
   */
  costUsd?: number;
  /**
   * Dollars other agents' models spent for this call (`ask_others`: each asked peer's extra call), by
   * agent id: added to those agents' costs and the run's budget, not the caller's.
   */
  peerCosts?: Readonly<Record<string, number>>;
}

/**
 * The events a tool registry may emit itself (server health, an agent's task plan, its questions to
 * others, its subagents); everything else is the orchestrator's.
 */
export type ToolEventInput = Extract<
  RunEventInput,
  {
    type:
      | 'mcp.server.ready'
      | 'mcp.server.failed'
      | 'task_plan.changed'
      | 'ask_others.asked'
      | 'ask_others.answered'
      | 'subagent.started'
      | 'subagent.event'
      | 'subagent.finished';
  }
>;

/** Handed to {@link ToolRegistry.start}: who owns the registry, and where its events go. */
export interface ToolLifecycleContext {
  agentId: string;
  signal: AbortSignal;
  emit(event: ToolEventInput): void;
  /**
   * Dollars the agent's tools spent outside a tool call (a background subagent's run): added to the
   * agent's cost and the run's budget (`max_cost_usd`) as they are spent.
   */
  addCost?(dollars: number): void;
}

/**
 * The tools one agent may use besides the workflow tools. The orchestrator asks for the list before
 * every step and executes calls through it between steps.
 */
export interface ToolRegistry {
  list(context: Omit<ToolContext, 'signal'>): readonly ToolDefinition[];
  /** Must not throw for tool failures: return `{ isError: true }` so the model can react. */
  execute(call: ToolCall, context: ToolContext): Promise<ToolResult>;
  /**
   * The fixed checks a call would fail before it does anything (the command deny-list, the path
   * checks), without running it: the reason, or null. Asked before the permission rules, so a call
   * that cannot run is never put to a person. `execute` checks again (the world may change between).
   */
  precheck?(call: ToolCall, context: ToolContext): Promise<string | null>;
  /**
   * Connects what the tools need (MCP servers…). The orchestrator calls it when the run starts, for
   * every agent in parallel, and waits. It must not throw for a source that fails: report it and go on.
   */
  start?(context: ToolLifecycleContext): Promise<void>;
  /** Releases everything `start` acquired. Called once when the run ends, whatever the outcome. */
  close?(): Promise<void>;
}

/** A tool call waiting for a person (or a UI) to allow it. */
export interface ToolApprovalRequest {
  agentId: string;
  phase: Phase;
  callId: string;
  toolName: string;
  arguments: unknown;
  /** The `ask` permission rule that holds the call, when one does. */
  rule?: PermissionRuleRef;
}

export interface ToolApprovalDecision {
  approved: boolean;
  /** Shown to the model when the call is denied. */
  reason?: string;
  /** Who answered (`terminal`, `web`, `file`, `timeout`, …); default `caller`. Kept in the audit ledger. */
  by?: DecisionSource;
}

/**
 * Decides whether a tool call may run. The orchestrator emits `tool.approval.requested`, awaits this,
 * then emits `tool.approval.resolved`. Without an approver every call runs (`auto_approve: true`).
 */
export type ToolApprover = (
  request: ToolApprovalRequest,
  signal: AbortSignal,
) => Promise<ToolApprovalDecision>;

/** What the permission rules say about one call; see `src/tools/permissions/rules.ts`. */
export type ToolPolicyVerdict =
  | { decision: 'allow'; rule: PermissionRuleRef }
  | { decision: 'ask'; rule: PermissionRuleRef }
  /** `message`: the tool error the model sees, naming the rule. */
  | { decision: 'deny'; rule: PermissionRuleRef; message: string };

/** A call as the permission rules see it. */
export interface ToolPolicyRequest {
  agentId: string;
  phase: Phase;
  toolName: string;
  arguments: unknown;
}

/**
 * The run's permission rules (`permissions:` team-wide and per agent, docs/permissions.md), asked
 * before every ordinary tool call — after the fixed checks ({@link ToolRegistry.precheck}), before the
 * approver. With a policy every decision is emitted as `tool.permission.decided`.
 */
export interface ToolPolicy {
  /**
   * The first rule that matches (the agent's own, then the team's), or null when none does; a promise
   * where the verdict needs the disk (where a path argument really leads).
   */
  evaluate(request: ToolPolicyRequest): ToolPolicyVerdict | null | Promise<ToolPolicyVerdict | null>;
  /** A call no rule matched: runs at once (`allow`) or waits for the approver (`ask`). */
  readonly unmatched: 'allow' | 'ask';
}

/** A tool call as the run's hooks (docs/hooks.md) see it. */
export interface ToolHookRequest {
  /** The run's id: the hooks' `session_id`. */
  runId: string;
  agentId: string;
  phase: Phase;
  callId: string;
  toolName: string;
  arguments: unknown;
}

/** What the PreToolUse hooks said about one call, all of them together. */
export interface PreToolHookOutcome {
  /**
   * `deny` refuses the call (the model reads `reason`); `ask` holds it for the approver; `allow` skips
   * the approver — the fixed checks and `deny` rules still refuse it. Null: no hook decided.
   */
  decision: 'allow' | 'ask' | 'deny' | null;
  reason?: string;
  /** The hook that decided (`hooks.PreToolUse[0].hooks[1]`), or that changed the input. */
  hook?: string;
  /** The call's arguments as a hook rewrote them: the call runs (and is checked) with these. */
  updatedInput?: Record<string, unknown>;
  /** Told to the model with the call's result. */
  additionalContext?: string;
  /** One line for each hook that failed, timed out or answered nonsense; the call goes on without it. */
  warnings: readonly string[];
}

/** What the PostToolUse hooks added: context for the model, and warnings. */
export interface PostToolHookOutcome {
  additionalContext?: string;
  warnings: readonly string[];
}

/**
 * The run's tool hooks, asked around every ordinary tool call (docs/hooks.md): PreToolUse before the
 * permission rules, PostToolUse after the call ran. Never throws; a failing hook is a warning.
 */
export interface ToolHooks {
  preToolUse(request: ToolHookRequest, signal: AbortSignal): Promise<PreToolHookOutcome>;
  postToolUse(
    request: ToolHookRequest & { result: string; isError: boolean },
    signal: AbortSignal,
  ): Promise<PostToolHookOutcome>;
}
