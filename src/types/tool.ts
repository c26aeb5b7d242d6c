import type { ToolCall, ToolDefinition } from './messages.js';

/** Who is calling a tool and in which phase; tools use it for permissions and planning mode. */
export interface ToolContext {
  agentId: string;
  phase: 'coordination' | 'presentation';
  signal: AbortSignal;
}

/** The text returned to the model. `isError` marks a tool-error result (the model sees it and may retry). */
export interface ToolResult {
  content: string;
  isError?: boolean;
}

/**
 * The tools one agent may use besides the workflow tools. The orchestrator asks for the list before
 * every step and executes calls through it between steps.
 */
export interface ToolRegistry {
  list(context: Omit<ToolContext, 'signal'>): readonly ToolDefinition[];
  /** Must not throw for tool failures: return `{ isError: true }` so the model can react. */
  execute(call: ToolCall, context: ToolContext): Promise<ToolResult>;
}
