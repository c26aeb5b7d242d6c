import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../../types/tool.js';

type ContentPart = CallToolResult['content'][number];

function describePart(part: ContentPart): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
    case 'audio':
      // Models cannot use base64 in a text result; say what was there instead of flooding the context.
      return `[${part.type}: ${part.mimeType}, ${part.data.length} bytes base64]`;
    case 'resource':
      return 'text' in part.resource && typeof part.resource.text === 'string'
        ? part.resource.text
        : `[resource: ${part.resource.uri}]`;
    case 'resource_link':
      return `[link: ${part.uri}]`;
    default:
      return `[${String((part as { type?: unknown }).type)} content]`;
  }
}

/**
 * Flattens an MCP `tools/call` result into the text the model sees. No truncation here: the registry
 * applies the configured limit to every tool alike.
 */
export function toToolResult(result: CallToolResult): ToolResult {
  const content = result.content ?? [];
  let text = content.map(describePart).join('\n');
  if (content.length === 0 && result.structuredContent !== undefined) {
    text = JSON.stringify(result.structuredContent, null, 2);
  }
  if (text === '') text = '(no output)';
  return result.isError === true ? { content: text, isError: true } : { content: text };
}
