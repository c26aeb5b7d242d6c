import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchema, ToolAnnotations, ToolDefinition } from '../../types/messages.js';
import { mcpToolNames } from './tool-naming.js';

/** The tools of one connection as the model sees them, and the way back to the server's own names. */
export interface McpToolSet {
  definitions: readonly ToolDefinition[];
  /** Final name → the name the server knows the tool by. */
  originals: ReadonlyMap<string, string>;
}

function parametersOf(tool: Tool): JsonSchema {
  // The SDK already insists on `type: "object"`; `properties` is optional there but some providers require it.
  const schema: JsonSchema = { ...tool.inputSchema, type: 'object' };
  if (typeof schema.properties !== 'object' || schema.properties === null) schema.properties = {};
  return schema;
}

function annotationsOf(tool: Tool): ToolAnnotations | undefined {
  const hints = tool.annotations;
  const annotations: ToolAnnotations = {};
  // Only hints the server stated: an absent hint means "unknown", which planning mode treats differently from false.
  if (typeof hints?.readOnlyHint === 'boolean') annotations.readOnly = hints.readOnlyHint;
  if (typeof hints?.destructiveHint === 'boolean') annotations.destructive = hints.destructiveHint;
  return Object.keys(annotations).length > 0 ? annotations : undefined;
}

/**
 * Turns a server's `tools/list` answer into tool definitions named `mcp__<server>__<tool>`. Tools
 * that can only run as MCP tasks are left out, because `tools/call` refuses them.
 */
export function toToolSet(server: string, tools: readonly Tool[]): McpToolSet {
  const usable = tools.filter((tool) => tool.execution?.taskSupport !== 'required');
  const names = mcpToolNames(
    server,
    usable.map((tool) => tool.name),
  );
  const definitions: ToolDefinition[] = [];
  const originals = new Map<string, string>();
  usable.forEach((tool, index) => {
    const name = names[index];
    // A server listing the same tool twice would otherwise shadow the first entry.
    if (name === undefined || originals.has(name)) return;
    originals.set(name, tool.name);
    const annotations = annotationsOf(tool);
    definitions.push({
      name,
      description: tool.description?.trim() || tool.title || `Tool "${tool.name}" of MCP server "${server}".`,
      parameters: parametersOf(tool),
      ...(annotations ? { annotations } : {}),
    });
  });
  return { definitions, originals };
}
