import type { ToolProvider } from '../tool-provider.js';
import type { McpServerSettings } from './settings.js';

/**
 * The MCP server `name` as a tool provider whose client — and the MCP SDK with it — is imported when the
 * provider starts, so runs without MCP servers never load it.
 */
export function lazyMcpToolProvider(name: string, settings: McpServerSettings): ToolProvider {
  let inner: ToolProvider | null = null;
  return {
    name,
    async start(context) {
      const { createMcpToolProvider } = await import('./mcp-tool-provider.js');
      inner = createMcpToolProvider(name, settings);
      await inner.start(context);
    },
    tools: () => inner?.tools() ?? [],
    call: (tool, args, context) =>
      inner
        ? inner.call(tool, args, context)
        : Promise.resolve({ content: `MCP server "${name}" has not started`, isError: true }),
    close: async () => {
      await inner?.close();
    },
  };
}
