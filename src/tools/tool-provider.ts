import type { ToolDefinition } from '../types/messages.js';
import type { ToolContext, ToolEventInput, ToolResult } from '../types/tool.js';

/** What a provider reports about itself while it starts, fails or recovers. */
export type ToolProviderEvent = ToolEventInput extends infer E
  ? E extends ToolEventInput
    ? Omit<E, 'agentId'>
    : never
  : never;

/** Handed to {@link ToolProvider.start}. */
export interface ToolProviderStartContext {
  signal: AbortSignal;
  /** Reports server health; the agent's registry stamps the agent id. */
  report(event: ToolProviderEvent): void;
  /** Dollars spent outside a call (a background subagent's run): the agent's cost and the run's budget. */
  addCost?(dollars: number): void;
}

/**
 * One origin of tools for one agent: an MCP server, or the custom tools of the config. An agent's
 * {@link ToolRegistry} combines its providers and adds what every tool needs (filtering, argument
 * validation, timeouts, truncation, error capture), so a provider only speaks its own protocol.
 */
export interface ToolProvider {
  /** Shown in errors and events, e.g. the MCP server name. */
  readonly name: string;
  /** Connects; must not throw for a failure of its own source (report it and offer no tools). */
  start(context: ToolProviderStartContext): Promise<void>;
  /** The tools offered right now, with final names (MCP tools already `mcp__<server>__<tool>`). Empty while down. */
  tools(): readonly ToolDefinition[];
  /**
   * Runs one of its tools with arguments already validated against its schema. May throw: the registry
   * turns the error into a tool-error result. Must honour `context.signal` (the registry aborts it on
   * `tool_timeout_seconds` and on cancellation).
   */
  call(name: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
  /**
   * The fixed checks `call` would refuse these arguments with (the command deny-list, the path checks),
   * without doing anything: the reason, or null. Optional; `call` must still check for itself.
   */
  precheck?(name: string, args: Record<string, unknown>, context: ToolContext): Promise<string | null>;
  /**
   * The least time one of its tools is given, for tools that take minutes by nature (a video is
   * rendered in minutes): the registry waits for the longer of this and `tool_timeout_seconds`.
   */
  minTimeoutMs?(name: string): number | undefined;
  /** Stops everything `start` began (child processes, connections). Idempotent. */
  close(): Promise<void>;
}
