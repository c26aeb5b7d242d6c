import type { Phase, RunEventInput } from './events.js';
import type { ToolCall, ToolDefinition } from './messages.js';

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
}

/** The events a tool registry may emit itself (server health); everything else is the orchestrator's. */
export type ToolEventInput = Extract<RunEventInput, { type: 'mcp.server.ready' | 'mcp.server.failed' }>;

/** Handed to {@link ToolRegistry.start}: who owns the registry, and where its events go. */
export interface ToolLifecycleContext {
  agentId: string;
  signal: AbortSignal;
  emit(event: ToolEventInput): void;
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
}

export interface ToolApprovalDecision {
  approved: boolean;
  /** Shown to the model when the call is denied. */
  reason?: string;
}

/**
 * Decides whether a tool call may run. The orchestrator emits `tool.approval.requested`, awaits this,
 * then emits `tool.approval.resolved`. Without an approver every call runs (`auto_approve: true`).
 */
export type ToolApprover = (
  request: ToolApprovalRequest,
  signal: AbortSignal,
) => Promise<ToolApprovalDecision>;
