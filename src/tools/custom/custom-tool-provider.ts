import { ToolError } from '../../types/errors.js';
import type { ToolDefinition } from '../../types/messages.js';
import type { ToolContext, ToolResult } from '../../types/tool.js';
import { untilAborted } from '../../util/abort.js';
import type { Tool } from '../define-tool.js';
import type { ToolProvider } from '../tool-provider.js';

/**
 * Offers already loaded tools (see `loadCustomTools`) to an agent's registry. Nothing to connect or
 * release: the modules were imported when the config was loaded.
 *
 * @param name shown in errors and events; defaults to `custom_tools`.
 */
export function customToolProvider(tools: readonly Tool[], name = 'custom_tools'): ToolProvider {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const definitions: readonly ToolDefinition[] = Object.freeze(tools.map(toDefinition));
  return {
    name,
    start: async () => {},
    tools: () => definitions,
    async call(toolName: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
      const tool = byName.get(toolName);
      if (!tool) throw new ToolError(`${name} has no tool named "${toolName}"`);
      const parsed = tool.parse(args);
      if (!parsed.ok) {
        const violations = parsed.message.split('\n').join('; ');
        return {
          content: `Invalid arguments for ${toolName}: ${violations}. Fix the arguments and call the tool again.`,
          isError: true,
        };
      }
      const { agentId, phase, signal } = context;
      let output: unknown;
      try {
        // Raced with the signal so a tool that ignores it still lets the registry move on.
        output = await untilAborted(tool.execute(parsed.value, { agentId, phase, signal }), signal);
      } catch (error) {
        throw asError(error, toolName);
      }
      return { content: formatToolOutput(output) };
    },
    close: async () => {},
  };
}

/** How a tool's return value reads to the model: text as is, anything else as indented JSON. */
export function formatToolOutput(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '(no output)';
  try {
    // undefined for functions and symbols, which JSON cannot express.
    const json = JSON.stringify(value, null, 2) as string | undefined;
    if (json !== undefined) return json;
  } catch {
    // Circular structures and bigints: the plain string form is better than failing the call.
  }
  try {
    return String(value);
  } catch {
    // Objects without a prototype have no toString.
    return Object.prototype.toString.call(value);
  }
}

function toDefinition(tool: Tool): ToolDefinition {
  const definition: ToolDefinition = {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
  };
  if (tool.annotations !== undefined) definition.annotations = { ...tool.annotations };
  return definition;
}

/** User code may `throw 'text'`; the registry expects Error objects. */
function asError(thrown: unknown, toolName: string): Error {
  if (thrown instanceof Error) return thrown;
  const text = thrown === undefined || thrown === null ? `${toolName} failed` : formatToolOutput(thrown);
  return new Error(text, { cause: thrown });
}
