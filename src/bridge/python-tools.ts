import { PythonError, type PythonHost } from './python-host.js';
import { defineTool, type Tool } from '../tools/define-tool.js';
import { withFixedArguments, type FixedArguments } from '../tools/custom/fixed-arguments.js';
import { ConfigError } from '../types/errors.js';
import type { JsonSchema } from '../types/messages.js';

/** One `custom_tools` entry whose module is a Python file, with its path resolved. */
export interface PythonToolEntry {
  /** Config path of the entry, e.g. `agents[0].backend.custom_tools[1]`. */
  where: string;
  name: string;
  function: string;
  path: string;
  description?: string;
  parameters?: JsonSchema;
  readOnly?: boolean;
  /** Arguments the config gives instead of the model (`preset_args`, `default_params`). */
  fixed?: FixedArguments;
}

/**
 * Python custom tools, run by the run's Python host: each module is imported now (a broken one is a
 * config error before any agent starts) and each function described from its signature and docstring,
 * unless the entry gives `parameters` and `description` itself. Calls go to the host; a Python exception
 * or a timeout comes back to the model as a tool error.
 */
export async function loadPythonTools(
  entries: readonly PythonToolEntry[],
  host: PythonHost,
): Promise<Tool[]> {
  const tools: Tool[] = [];
  for (const entry of entries) {
    let description;
    try {
      [description] = await host.load(entry.path, [entry.function]);
    } catch (error) {
      const reason = error instanceof PythonError ? error.message : (error as Error).message;
      throw new ConfigError(
        `${entry.where}.function: ${entry.function} in ${entry.path} could not be loaded: ${reason}`,
        {
          path: `${entry.where}.function`,
          hint: `check the module with: ${host.python} -c "import runpy; runpy.run_path('${entry.path}')"`,
        },
      );
    }
    const text = entry.description ?? (description?.description || `Custom tool ${entry.name}`);
    try {
      const tool = defineTool({
        name: entry.name,
        description: text,
        parameters: entry.parameters ?? description?.parameters ?? { type: 'object', properties: {} },
        ...(entry.readOnly === undefined ? {} : { readOnly: entry.readOnly }),
        execute: (args, context) => host.call(entry.path, entry.function, args, context.signal),
      });
      tools.push(entry.fixed ? withFixedArguments(tool, entry.fixed) : tool);
    } catch (error) {
      throw new ConfigError(`${entry.where}: ${(error as Error).message}`, { path: entry.where });
    }
  }
  return tools;
}
