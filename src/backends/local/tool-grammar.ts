import type { GbnfJsonSchema, Llama, LlamaGrammar, LlamaModel } from 'node-llama-cpp';
import { TokenBias } from 'node-llama-cpp';
import { z } from 'zod';
import { capStrings, isRecord, sanitizeSchema, type Json, type SanitizedSchema } from './schema-subset.js';

/**
 * Grammar-constrained tool calls for the in-process model.
 *
 * When tools are offered, the model must answer with one JSON object `{"tool": <name>, "arguments":
 * {...}}`. The grammar is the union (`oneOf`) over the offered tools, each alternative fixing `tool` to
 * one name and `arguments` to that tool's schema, so the output always parses and names an offered tool.
 *
 * How a tool schema is narrowed to what the grammar can express: `schema-subset.ts`.
 */

/** A tool as the grammar sees it: a name and the JSON schema of its arguments. */
export interface GrammarTool {
  name: string;
  inputSchema: unknown;
}

/**
 * The `{ tool, arguments }` union over `tools` (which must not be empty). With `maxChars`, each
 * tool's strings share that many characters, so any call fits the output budget.
 */
export function toolCallSchema(tools: readonly GrammarTool[], maxChars?: number): SanitizedSchema {
  if (tools.length === 0) throw new Error('toolCallSchema needs at least one tool');
  let exact = true;
  const alternatives = tools.map((tool): GbnfJsonSchema => {
    const args = sanitizeSchema(tool.inputSchema);
    if (maxChars !== undefined) capStrings(args.schema, maxChars);
    exact &&= args.exact;
    return {
      type: 'object',
      properties: { tool: { const: tool.name }, arguments: args.schema },
    } as GbnfJsonSchema;
  });
  if (alternatives.length === 1) return { schema: alternatives[0] as GbnfJsonSchema, exact };
  return { schema: { oneOf: alternatives }, exact };
}

/**
 * Fixes what the grammar cannot prevent: llama.cpp's integer rule allows exponents (`52e-5` parses
 * to a fraction) and bounds (`minimum`, `maximum`) are not expressible. Integers are rounded and
 * numbers clamped into range, following the tool's own JSON schema. Returns a repaired copy.
 */
export function repairArguments(schema: unknown, value: unknown): unknown {
  if (!isRecord(schema)) return value;
  if (typeof value === 'number') {
    const types = Array.isArray(schema['type']) ? schema['type'] : [schema['type']];
    let n = types.includes('integer') && !types.includes('number') ? Math.round(value) : value;
    const min = schema['minimum'] ?? schema['exclusiveMinimum'];
    const max = schema['maximum'] ?? schema['exclusiveMaximum'];
    const step = types.includes('integer') && !types.includes('number') ? 1 : 1e-9;
    if (typeof min === 'number' && n < min) n = schema['minimum'] === undefined ? min + step : min;
    if (typeof max === 'number' && n > max) n = schema['maximum'] === undefined ? max - step : max;
    return n === 0 ? 0 : n; // no -0 from rounding
  }
  if (Array.isArray(value)) return value.map((item) => repairArguments(schema['items'], item));
  if (isRecord(value) && isRecord(schema['properties'])) {
    const properties = schema['properties'];
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, repairArguments(properties[k], v)]));
  }
  return value;
}

/** Compiled grammars per Llama instance, keyed by their schema: the workflow tools repeat every step. */
const grammarCache = new WeakMap<Llama, Map<string, Promise<LlamaGrammar>>>();
const GRAMMAR_CACHE_SIZE = 64;

/** The grammar of {@link toolCallSchema} for `tools`, compiled once per distinct tool set. */
export async function toolCallGrammar(
  llama: Llama,
  tools: readonly GrammarTool[],
  maxChars?: number,
): Promise<{ grammar: LlamaGrammar; exact: boolean }> {
  const { schema, exact } = toolCallSchema(tools, maxChars);
  return { grammar: await cachedGrammar(llama, schema), exact };
}

/** The grammar of an arbitrary JSON schema (for `responseFormat: json`), sanitized and cached. */
export async function jsonSchemaGrammar(
  llama: Llama,
  schema: unknown,
): Promise<{ grammar: LlamaGrammar; exact: boolean }> {
  const sanitized = sanitizeSchema(schema);
  return { grammar: await cachedGrammar(llama, sanitized.schema), exact: sanitized.exact };
}

function cachedGrammar(llama: Llama, schema: GbnfJsonSchema): Promise<LlamaGrammar> {
  let cache = grammarCache.get(llama);
  if (cache === undefined) {
    cache = new Map();
    grammarCache.set(llama, cache);
  }
  const key = JSON.stringify(schema);
  const cached = cache.get(key);
  if (cached !== undefined) {
    // Refresh its place in the least-recently-used order.
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  // Its parameter type is generic over literal schemas; ours is built at run time.
  const create = llama.createGrammarForJsonSchema as (schema: GbnfJsonSchema) => Promise<LlamaGrammar>;
  const created = create.call(llama, schema);
  cache.set(key, created);
  created.catch(() => cache.delete(key));
  if (cache.size > GRAMMAR_CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return created;
}

/** A parsed `{ tool, arguments }` answer. */
export interface ParsedToolCall {
  toolName: string;
  /** The arguments object (`{}` when the model gave none). */
  input: unknown;
}

/**
 * Reads the model's tool-call JSON. Returns a reason string when it is not a `{ tool, arguments }`
 * object naming one of `toolNames` (only possible when generation was cut short).
 */
export function parseToolCall(text: string, toolNames: readonly string[]): ParsedToolCall | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'the tool call is not complete JSON';
  }
  if (!isRecord(value) || typeof value['tool'] !== 'string') return 'the tool call names no tool';
  if (!toolNames.includes(value['tool'])) return `the tool call names an unknown tool "${value['tool']}"`;
  return { toolName: value['tool'], input: value['arguments'] ?? {} };
}

const validatorCache = new Map<string, z.ZodType | null>();
const VALIDATOR_CACHE_SIZE = 64;

/**
 * Checks `value` against a tool's original JSON schema (used when the grammar was looser than the
 * schema). Returns undefined when it is valid — or when zod cannot read the schema, so an unreadable
 * schema never blocks a call — else a one-line reason.
 */
export function validateArguments(schema: unknown, value: unknown): string | undefined {
  const key = JSON.stringify(schema) ?? 'undefined';
  let validator = validatorCache.get(key);
  if (validator === undefined) {
    try {
      validator = z.fromJSONSchema(withDefs(schema) as Parameters<typeof z.fromJSONSchema>[0]);
    } catch {
      validator = null;
    }
    validatorCache.set(key, validator);
    if (validatorCache.size > VALIDATOR_CACHE_SIZE) {
      const oldest = validatorCache.keys().next().value;
      if (oldest !== undefined) validatorCache.delete(oldest);
    }
  }
  if (validator === null) return undefined;
  const result = validator.safeParse(value);
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  return issue === undefined
    ? 'the arguments do not match the schema'
    : `${issue.path.length > 0 ? issue.path.join('.') + ': ' : ''}${issue.message}`;
}

/** Draft-07 `definitions` as `$defs` (zod resolves only `#/$defs/...` references). */
function withDefs(schema: unknown): unknown {
  if (!isRecord(schema) || !isRecord(schema['definitions'])) return schema;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (!isRecord(value)) return value;
    const copy: Json = {};
    for (const [key, inner] of Object.entries(value)) {
      copy[key] =
        key === '$ref' && typeof inner === 'string'
          ? inner.replace(/^#\/definitions\//, '#/$defs/')
          : rewrite(inner);
    }
    return copy;
  };
  const { definitions, ...rest } = rewrite(schema) as Json;
  return { ...rest, $defs: { ...(isRecord(rest['$defs']) ? rest['$defs'] : {}), ...(definitions as Json) } };
}

const closingBiasCache = new WeakMap<LlamaModel, TokenBias>();
/** Texts that close a JSON string, object or array; each one that is a single token is boosted. */
const CLOSERS = ['"', '}', ']', '"}', '"]', '}}', '"}}', ' }', ' ]', '\n}'];

/**
 * A token bias that pushes the model to close what it has open (strings, objects, arrays). Applied near
 * the end of the output budget so a long argument string ends as valid JSON instead of being cut off:
 * the grammar still decides what is allowed, the bias only makes the closing choices likely.
 */
export function closingTokenBias(model: LlamaModel): TokenBias {
  let bias = closingBiasCache.get(model);
  if (bias === undefined) {
    bias = new TokenBias(model.tokenizer);
    for (const text of CLOSERS) {
      const tokens = model.tokenize(text, false, 'trimLeadingSpace');
      if (tokens.length === 1) bias.set(tokens, { logit: 12 });
    }
    closingBiasCache.set(model, bias);
  }
  return bias;
}
