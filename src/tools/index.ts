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
export { createMcpToolProvider, mcpToolName, type McpServerSettings } from './mcp/index.js';
