/**
 * `massgen/tools`: give agents tools written in TypeScript or JavaScript.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { defineTool } from 'massgen/tools';
 *
 * export const weather = defineTool({
 *   name: 'weather',
 *   description: 'Current temperature in a city.',
 *   parameters: z.object({ city: z.string() }),
 *   readOnly: true,
 *   execute: async ({ city }) => `It is 21°C in ${city}.`,
 * });
 * ```
 * @packageDocumentation
 */
export { defineTool, isTool, type Tool, type ToolExecutionContext } from './define-tool.js';
export { createAgentToolRegistry, type AgentToolRegistryOptions } from './agent-tool-registry.js';
export type { ToolProvider, ToolProviderEvent, ToolProviderStartContext } from './tool-provider.js';
// The MCP client itself (and the MCP SDK) loads only for agents with MCP servers: see lazyMcpToolProvider.
export { lazyMcpToolProvider } from './mcp/lazy-provider.js';
export { mcpToolName } from './mcp/tool-naming.js';
export type { McpServerSettings } from './mcp/settings.js';
