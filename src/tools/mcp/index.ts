/** The MCP client adapter: one {@link ToolProvider} per configured MCP server. */
export { createMcpToolProvider } from './mcp-tool-provider.js';
export { mcpToolName } from './tool-naming.js';
export type { McpProviderOptions, McpServerSettings } from './settings.js';
