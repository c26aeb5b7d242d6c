import { ConfigError } from '../../types/errors.js';
import type { JsonSchema } from '../../types/messages.js';
import { closestMatch } from '../../util/closest-match.js';
import { defineTool, isTool, toolNameProblem, withToolOverrides, type Tool } from '../define-tool.js';
import { withFixedArguments, type FixedArguments } from './fixed-arguments.js';
import { importToolModule, type ToolModule } from './import-tool-module.js';

/** One `custom_tools` entry of an agent's backend config, with `path` already resolved. */
export interface CustomToolSettings {
  /** The name the model sees. */
  name: string;
  description?: string;
  /** Absolute path of the module (.js, .mjs, .cjs, .ts, .mts or .cts). */
  path: string;
  /** The named export: a {@link Tool} made by `defineTool`, or a plain `(args, context) => result` function. */
  function: string;
  /** JSON Schema of a plain function's arguments (else a zod schema exported as `<function>Schema`). */
  parameters?: JsonSchema;
  readOnly?: boolean;
  destructive?: boolean;
  /** Arguments the config gives instead of the model (`preset_args`, `default_params`). */
  fixed?: FixedArguments;
}

/** Options of {@link loadCustomTools}. */
export interface LoadCustomToolsOptions {
  /** Config path of the list, prefixed to every error's path, e.g. `agents[0].backend.custom_tools`. */
  where: string;
}

type PlainToolFunction = (args: Record<string, unknown>, context: unknown) => unknown;

/**
 * Loads every module and export of `entries` up front, so a broken tool fails the run before it starts.
 *
 * @throws ConfigError with a `path` like `agents[0].backend.custom_tools[1].function` and a hint, for a
 *   missing or unloadable module, a missing or unusable export, a missing or invalid parameters schema,
 *   an invalid tool name or two tools with the same name.
 */
export async function loadCustomTools(
  entries: readonly CustomToolSettings[],
  options: LoadCustomToolsOptions,
): Promise<Tool[]> {
  entries.forEach((entry, index) => {
    // An empty name means "keep the name the module's defineTool gave", checked once that is known.
    if (entry.name === '') return;
    const problem = toolNameProblem(entry.name);
    if (problem) {
      const where = `${options.where}[${index}].name`;
      throw new ConfigError(`${where}: ${problem}`, {
        path: where,
        hint: 'tool names may contain only letters, digits, "_" and "-" (at most 64 characters)',
      });
    }
  });
  // Several entries often share a module; import it once (tsx would otherwise compile it again each time).
  const modules = new Map<string, Promise<ToolModule>>();
  const tools: Tool[] = [];
  const firstIndexByName = new Map<string, number>();
  for (const [index, entry] of entries.entries()) {
    const at = (key: string): string => `${options.where}[${index}].${key}`;
    let module = modules.get(entry.path);
    if (!module) {
      module = importToolModule(entry.path, at('path'));
      modules.set(entry.path, module);
    }
    const built = buildTool(entry, await module, at);
    const tool = entry.fixed ? withFixedArguments(built, entry.fixed) : built;
    const first = firstIndexByName.get(tool.name);
    if (first !== undefined) {
      throw new ConfigError(`${at('name')}: duplicate custom tool name "${tool.name}"`, {
        path: at('name'),
        hint: `${options.where}[${first}] already defines it; give one of them another name`,
      });
    }
    firstIndexByName.set(tool.name, index);
    tools.push(tool);
  }
  return tools;
}

function buildTool(entry: CustomToolSettings, module: ToolModule, at: (key: string) => string): Tool {
  const { container, value } = findExport(module, entry.function);
  if (value === undefined) throw missingExport(entry, module, at('function'));
  if (isTool(value)) {
    try {
      return withToolOverrides(value, {
        ...(entry.name === '' ? {} : { name: entry.name }),
        ...pick(entry),
      });
    } catch (error) {
      throw new ConfigError(`${at('name')}: ${(error as Error).message}`, { path: at('name') });
    }
  }
  if (typeof value !== 'function') {
    throw new ConfigError(
      `${at('function')}: the export "${entry.function}" of ${entry.path} is ${describeValue(value)}, not a function or a tool`,
      {
        path: at('function'),
        hint: 'export a function (args, context) => result, or a tool made with defineTool',
      },
    );
  }
  if (entry.name === '') {
    throw new ConfigError(`${at('name')}: a custom tool needs a name`, {
      path: at('name'),
      hint: `add name: to the entry for ${entry.function}`,
    });
  }
  return definePlainTool(entry, value as PlainToolFunction, container, at);
}

function definePlainTool(
  entry: CustomToolSettings,
  execute: PlainToolFunction,
  container: ToolModule,
  at: (key: string) => string,
): Tool {
  const base = { name: entry.name, execute, ...pick(entry) };
  if (entry.parameters !== undefined) {
    try {
      const description = entry.description ?? `Custom tool ${entry.name}`;
      return defineTool({ ...base, description, parameters: entry.parameters });
    } catch (error) {
      throw new ConfigError(`${at('parameters')}: ${(error as Error).message}`, {
        path: at('parameters'),
        hint: 'parameters must be a JSON Schema (draft-07) object schema',
      });
    }
  }
  for (const suffix of ['Schema', 'Parameters']) {
    const exportName = `${entry.function}${suffix}`;
    const schema = container[exportName];
    if (schema === undefined) continue;
    try {
      return defineTool({
        ...base,
        description: entry.description ?? schemaDescription(schema) ?? `Custom tool ${entry.name}`,
        parameters: schema as never,
      });
    } catch (error) {
      throw new ConfigError(`${at('function')}: the export "${exportName}": ${(error as Error).message}`, {
        path: at('function'),
        hint: `export ${exportName} as a zod object schema, z.object({...})`,
      });
    }
  }
  throw new ConfigError(`${at('parameters')}: no parameters for the custom tool "${entry.name}"`, {
    path: at('parameters'),
    hint: `add parameters: (a JSON Schema) to the entry, or export a zod schema named ${entry.function}Schema next to ${entry.function}`,
  });
}

/** The export, looked up among the named exports first, then in a CommonJS `module.exports` object. */
function findExport(module: ToolModule, name: string): { container: ToolModule; value: unknown } {
  if (module[name] !== undefined) return { container: module, value: module[name] };
  const fallback = module.default;
  if ((typeof fallback === 'object' || typeof fallback === 'function') && fallback !== null) {
    const container = fallback as ToolModule;
    if (container[name] !== undefined) return { container, value: container[name] };
  }
  return { container: module, value: undefined };
}

function exportNames(module: ToolModule): string[] {
  const names = new Set(Object.keys(module).filter((name) => name !== 'default'));
  const fallback = module.default;
  if (typeof fallback === 'object' && fallback !== null) {
    for (const name of Object.keys(fallback)) names.add(name);
  } else if (fallback !== undefined) {
    names.add('default');
  }
  return [...names].sort();
}

function missingExport(entry: CustomToolSettings, module: ToolModule, where: string): ConfigError {
  const names = exportNames(module);
  const suggestion = closestMatch(entry.function, names);
  const exportsText = names.length > 0 ? `its exports: ${names.join(', ')}` : 'it exports nothing';
  return new ConfigError(
    `${where}: ${entry.path} has no export named "${entry.function}"${suggestion ? ` — did you mean "${suggestion}"?` : ''} (${exportsText})`,
    { path: where, hint: 'set function: to the name the module exports (exports are case-sensitive)' },
  );
}

function pick(entry: CustomToolSettings): {
  description?: string;
  readOnly?: boolean;
  destructive?: boolean;
} {
  return {
    ...(entry.description === undefined ? {} : { description: entry.description }),
    ...(entry.readOnly === undefined ? {} : { readOnly: entry.readOnly }),
    ...(entry.destructive === undefined ? {} : { destructive: entry.destructive }),
  };
}

/** A zod schema's `.describe()` text, a natural place for the tool's description. */
function schemaDescription(schema: unknown): string | undefined {
  const description = (schema as { description?: unknown } | null)?.description;
  return typeof description === 'string' && description !== '' ? description : undefined;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
