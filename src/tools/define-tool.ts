import { z } from 'zod';
import type { JsonSchema, ToolAnnotations } from '../types/messages.js';
import { compileArgumentsValidator, type ArgumentsValidator } from './json-schema-arguments.js';
import { isRecord } from '../util/guards.js';
import { describeError } from '../types/errors.js';

/** What a tool's `execute` learns about the call besides its arguments. */
export interface ToolExecutionContext {
  agentId: string;
  phase: 'coordination' | 'presentation';
  /** Aborted on `tool_timeout_seconds` and on cancellation; long-running tools should stop. */
  signal: AbortSignal;
}

/** The result of {@link Tool.parse}. */
export type ToolParseResult = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

/** A tool made by {@link defineTool}, ready to be offered to agents (e.g. from a `custom_tools` module). */
export interface Tool {
  readonly name: string;
  readonly description: string;
  /** The JSON Schema (draft-07, an object schema) sent to the model. */
  readonly parameters: JsonSchema;
  readonly annotations?: ToolAnnotations;
  /**
   * Checks and normalises arguments (a zod parse when defined with zod, defaults filled in); on failure
   * returns a readable violation message, one line per problem.
   */
  parse(args: unknown): ToolParseResult;
  /** Runs the tool with arguments that passed {@link Tool.parse}. */
  execute(args: Record<string, unknown>, context: ToolExecutionContext): Promise<unknown>;
}

/** Tools given in code (`defineTool`), by agent id: a library caller's, or a capability's. */
export type ToolsByAgent = Readonly<Record<string, readonly Tool[]>>;

interface ToolDefinitionBase {
  name: string;
  description: string;
  /** The tool only reads; planning mode may allow it. */
  readOnly?: boolean;
  /** The tool may destroy or overwrite data. */
  destructive?: boolean;
}

/** {@link defineTool}'s argument when the parameters are a zod object schema. */
export interface ZodToolDefinition<S extends z.ZodType> extends ToolDefinitionBase {
  parameters: S;
  execute(args: z.output<S>, context: ToolExecutionContext): unknown;
}

/** {@link defineTool}'s argument when the parameters are a JSON Schema object. */
export interface JsonSchemaToolDefinition extends ToolDefinitionBase {
  parameters: JsonSchema;
  execute(args: Record<string, unknown>, context: ToolExecutionContext): unknown;
}

// Symbol.for, not Symbol(): a tool module may import its own copy of massgen, and the CLI must still
// recognise the tools it exports.
const TOOL_BRAND = Symbol.for('massgen.tool');

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const WORKFLOW_TOOL_NAMES: ReadonlySet<string> = new Set(['new_answer', 'vote']);

/** Why `name` cannot name a tool, or `undefined` when it can. */
export function toolNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    return `invalid tool name ${JSON.stringify(name)}: use 1-64 letters, digits, "_" or "-"`;
  }
  if (WORKFLOW_TOOL_NAMES.has(name)) {
    return `the tool name "${name}" is reserved for the coordination workflow`;
  }
  return undefined;
}

/**
 * Defines a tool for massgen agents. Parameters are a zod object schema (the arguments are parsed with
 * it, so `execute` gets the typed output) or a JSON Schema object (checked with ajv).
 *
 * @throws TypeError for a bad name (not `^[A-Za-z0-9_-]{1,64}$`, or a workflow tool name), a schema
 *   that is not an object schema, or a JSON Schema that does not compile.
 */
export function defineTool<S extends z.ZodType>(definition: ZodToolDefinition<S>): Tool;
export function defineTool(definition: JsonSchemaToolDefinition): Tool;
export function defineTool(definition: ZodToolDefinition<z.ZodType> | JsonSchemaToolDefinition): Tool {
  const nameProblem = toolNameProblem(definition.name);
  if (nameProblem) throw new TypeError(`defineTool: ${nameProblem}`);
  const label = `defineTool("${definition.name}")`;
  if (typeof definition.description !== 'string')
    throw new TypeError(`${label}: description must be a string`);
  if (typeof definition.execute !== 'function') throw new TypeError(`${label}: execute must be a function`);
  const { parameters, parse } = isZodLike(definition.parameters)
    ? fromZod(definition.parameters, label)
    : fromJsonSchema(definition.parameters, label);
  const execute = definition.execute as (args: Record<string, unknown>, ctx: ToolExecutionContext) => unknown;
  return brand({
    name: definition.name,
    description: definition.description,
    parameters,
    annotations: toAnnotations(definition.readOnly, definition.destructive),
    parse,
    execute: async (args, context) => await execute(args, context),
  });
}

/** True for the objects {@link defineTool} returns (also those of another copy of massgen). */
export function isTool(value: unknown): value is Tool {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Record<keyof Tool | typeof TOOL_BRAND, unknown>>;
  return (
    candidate[TOOL_BRAND] === true &&
    typeof candidate.name === 'string' &&
    typeof candidate.parse === 'function' &&
    typeof candidate.execute === 'function'
  );
}

/** What {@link withToolOverrides} may change. */
export interface ToolOverrides {
  name?: string;
  description?: string;
  readOnly?: boolean;
  destructive?: boolean;
  /** The schema the model sees, when the config fixes or defaults some arguments. */
  parameters?: JsonSchema;
  /** Rewrites the model's arguments before the original parses them (whose output then runs). */
  arguments?: (args: Record<string, unknown>) => Record<string, unknown>;
}

/**
 * A copy of `tool` with another name, description, annotations or model-facing schema (a config entry
 * renaming a tool its module defines, or fixing some of its arguments); parsing and execution stay the
 * original's, parsing after `overrides.arguments` rewrote the model's arguments.
 *
 * @throws TypeError for a bad name, as {@link defineTool}.
 */
export function withToolOverrides(tool: Tool, overrides: ToolOverrides): Tool {
  const name = overrides.name ?? tool.name;
  const nameProblem = toolNameProblem(name);
  if (nameProblem) throw new TypeError(nameProblem);
  const rewrite = overrides.arguments ?? ((args: Record<string, unknown>) => args);
  return brand({
    name,
    description: overrides.description ?? tool.description,
    parameters: overrides.parameters ?? tool.parameters,
    annotations: toAnnotations(
      overrides.readOnly ?? tool.annotations?.readOnly,
      overrides.destructive ?? tool.annotations?.destructive,
    ),
    parse: (args) => tool.parse(isRecord(args) ? rewrite(args) : args),
    execute: (args, context) => tool.execute(args, context),
  });
}

/** Duck typing, because a tool module may bring its own copy of zod. */
function isZodLike(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && typeof (value as z.ZodType).safeParse === 'function';
}

function fromZod(schema: z.ZodType, label: string): { parameters: JsonSchema; parse: Tool['parse'] } {
  if (!('_zod' in schema)) {
    throw new TypeError(`${label}: parameters look like a zod 3 schema; use zod 4 or a JSON Schema object`);
  }
  let json: JsonSchema;
  try {
    // `input`: the model writes what the schema accepts (defaults optional, transforms' inputs).
    json = z.toJSONSchema(schema, { target: 'draft-07', io: 'input' }) as JsonSchema;
  } catch (error) {
    throw new TypeError(`${label}: cannot convert the zod schema to JSON Schema: ${describeError(error)}`, {
      cause: error,
    });
  }
  const { $schema: _ignored, ...parameters } = json;
  if (parameters.type !== 'object') {
    throw new TypeError(`${label}: parameters must be a zod object schema (z.object({...}))`);
  }
  const parse = (args: unknown): ToolParseResult => {
    const result = schema.safeParse(args);
    if (result.success) return { ok: true, value: result.data as Record<string, unknown> };
    return { ok: false, message: result.error.issues.map(formatZodIssue).join('\n') };
  };
  return { parameters, parse };
}

function formatZodIssue(issue: { path: readonly PropertyKey[]; message: string }): string {
  let path = '';
  for (const key of issue.path) {
    path += typeof key === 'number' ? `[${key}]` : `${path === '' ? '' : '.'}${String(key)}`;
  }
  return `${path === '' ? 'arguments' : path}: ${issue.message}`;
}

function fromJsonSchema(schema: unknown, label: string): { parameters: JsonSchema; parse: Tool['parse'] } {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new TypeError(`${label}: parameters must be a zod object schema or a JSON Schema object`);
  }
  // `$schema` is dropped: ajv would reject other drafts' meta-schemas and some providers reject the key.
  const { $schema: _ignored, ...rest } = schema as JsonSchema;
  if (rest.type !== undefined && rest.type !== 'object') {
    throw new TypeError(`${label}: parameters must describe an object (type: object)`);
  }
  const parameters: JsonSchema = { ...rest, type: 'object' };
  let violations: ArgumentsValidator;
  try {
    violations = compileArgumentsValidator(parameters, { useDefaults: true });
  } catch (error) {
    throw new TypeError(`${label}: invalid JSON Schema: ${describeError(error)}`, { cause: error });
  }
  const parse = (args: unknown): ToolParseResult => {
    // ajv fills defaults in place; work on a copy so the caller's arguments stay as the model sent them.
    const data = isRecord(args) ? copyOf(args) : args;
    const found = violations(data);
    if (found.length === 0 && isRecord(data)) return { ok: true, value: data };
    return { ok: false, message: (found.length > 0 ? found : ['arguments must be object']).join('\n') };
  };
  return { parameters, parse };
}

function copyOf(value: Record<string, unknown>): Record<string, unknown> {
  try {
    return structuredClone(value);
  } catch {
    return { ...value };
  }
}

function toAnnotations(
  readOnly: boolean | undefined,
  destructive: boolean | undefined,
): ToolAnnotations | undefined {
  if (readOnly === undefined && destructive === undefined) return undefined;
  return {
    ...(readOnly === undefined ? {} : { readOnly }),
    ...(destructive === undefined ? {} : { destructive }),
  };
}

function brand(tool: Tool): Tool {
  const { annotations, ...rest } = tool;
  const branded = annotations === undefined ? rest : { ...rest, annotations };
  Object.defineProperty(branded, TOOL_BRAND, { value: true });
  return Object.freeze(branded);
}
