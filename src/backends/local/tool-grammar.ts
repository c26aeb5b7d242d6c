import type { GbnfJsonSchema, Llama, LlamaGrammar, LlamaModel } from 'node-llama-cpp';
import { TokenBias } from 'node-llama-cpp';
import { z } from 'zod';

/**
 * Grammar-constrained tool calls for the in-process model.
 *
 * When tools are offered, the model must answer with one JSON object `{"tool": <name>, "arguments":
 * {...}}`. The grammar is the union (`oneOf`) over the offered tools, each alternative fixing `tool` to
 * one name and `arguments` to that tool's schema, so the output always parses and names an offered tool.
 *
 * node-llama-cpp's JSON-schema-to-GBNF converter understands a subset of JSON Schema: `type` (a name or
 * a list of primitive names), `const`, `enum` (primitive values), `oneOf`, `properties`,
 * `additionalProperties`, `items`/`prefixItems`, `minItems`/`maxItems`, `minLength`/`maxLength`,
 * `format` (`date-time`, `time`, `date` only) and `$ref` into `$defs`. Quirks that matter here:
 * - every property in `properties` is generated (its `required` is ignored) — still valid output;
 * - `additionalProperties` defaults to false — stricter than JSON Schema, still valid output;
 * - a schema it does not recognise (`{}`, `anyOf`, `allOf`, ...) silently becomes `null`.
 *
 * {@link sanitizeSchema} therefore rewrites a tool schema into that subset: `anyOf` becomes `oneOf`,
 * "any value" becomes an explicit union of every JSON type, annotations are dropped. Where a feature
 * cannot be expressed (`minimum`, `pattern`, `allOf`, `not`, ...) the grammar is made looser and the
 * schema reports `exact: false`; the caller then validates the output against the original schema
 * ({@link validateArguments}).
 */

/** A tool as the grammar sees it: a name and the JSON schema of its arguments. */
export interface GrammarTool {
  name: string;
  inputSchema: unknown;
}

/** A schema in the converter's subset, and whether it accepts exactly what the original accepts. */
export interface SanitizedSchema {
  schema: GbnfJsonSchema;
  /** False when a feature had to be dropped: the grammar is looser and the output needs validating. */
  exact: boolean;
}

type Json = Record<string, unknown>;

const PRIMITIVE_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const GRAMMAR_FORMATS = new Set(['date-time', 'time', 'date']);
/** Keywords the grammar cannot enforce; their presence makes the sanitized schema inexact. */
const UNSUPPORTED_KEYWORDS = [
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'pattern',
  'patternProperties',
  'propertyNames',
  'dependencies',
  'dependentRequired',
  'dependentSchemas',
  'uniqueItems',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
] as const;

/** Any JSON value, spelled so the converter understands it (an empty schema would become `null`). */
const ANY_JSON: GbnfJsonSchema = {
  oneOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'object', additionalProperties: true },
    { type: 'array' },
  ],
};

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isPrimitive = (value: unknown): value is string | number | boolean | null =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

/** Rewrites a JSON schema into the subset node-llama-cpp's grammar converter supports. */
export function sanitizeSchema(schema: unknown): SanitizedSchema {
  const state = { exact: true, defs: rootDefs(schema) };
  const defs: Record<string, GbnfJsonSchema> = {};
  for (const [name, def] of Object.entries(state.defs)) defs[name] = convert(def, state);
  let result = convert(schema, state);
  if (Object.keys(defs).length > 0) {
    // `$defs` may sit on a ref, oneOf, object or array schema; anything else is wrapped in a one-way oneOf.
    result = (
      'type' in result && (result.type === 'object' || result.type === 'array')
        ? { ...result, $defs: defs }
        : { oneOf: [result], $defs: defs }
    ) as GbnfJsonSchema;
  }
  return { schema: result, exact: state.exact };
}

function rootDefs(schema: unknown): Json {
  if (!isRecord(schema)) return {};
  const defs: Json = {};
  for (const key of ['definitions', '$defs']) {
    const group = schema[key];
    if (isRecord(group)) Object.assign(defs, group);
  }
  return defs;
}

interface SanitizeState {
  exact: boolean;
  defs: Json;
}

function convert(schema: unknown, state: SanitizeState): GbnfJsonSchema {
  if (schema === true) return ANY_JSON;
  if (!isRecord(schema)) {
    // `false` (nothing is valid) or garbage: nothing sensible to enforce.
    state.exact = false;
    return ANY_JSON;
  }
  const unsupported = UNSUPPORTED_KEYWORDS.filter((key) => schema[key] !== undefined);
  const allOf = schema['allOf'];
  // `allOf: [X]` next to annotations only (what zod and pydantic emit for a described `$ref`) is just X.
  if (Array.isArray(allOf) && allOf.length === 1 && !hasAssertions(schema, ['allOf'])) {
    return convert(allOf[0], state);
  }
  // Anything else the grammar cannot enforce is left out: looser, and validated afterwards.
  if (unsupported.length > 0) state.exact = false;

  if (typeof schema['$ref'] === 'string') {
    const match = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(schema['$ref']);
    const name = match?.[1];
    if (name !== undefined && state.defs[name] !== undefined)
      return { $ref: `#/$defs/${name}` } as GbnfJsonSchema;
    state.exact = false;
    return ANY_JSON;
  }

  if (schema['const'] !== undefined) {
    if (isPrimitive(schema['const'])) return { const: schema['const'] };
    state.exact = false;
    return ANY_JSON;
  }

  const enumValues = schema['enum'];
  if (Array.isArray(enumValues)) {
    if (enumValues.length > 0 && enumValues.every(isPrimitive)) return { enum: enumValues };
    state.exact = false;
    return ANY_JSON;
  }

  const union = Array.isArray(schema['anyOf']) ? schema['anyOf'] : schema['oneOf'];
  if (Array.isArray(union) && union.length > 0) {
    // The grammar's `oneOf` accepts a value matching several alternatives (it is really `anyOf`).
    if (schema['oneOf'] !== undefined) state.exact = false;
    if (!hasAssertions(schema, ['anyOf', 'oneOf'])) return { oneOf: union.map((alt) => convert(alt, state)) };
    // A union next to other assertions means allOf(base, union): enforce the base only.
    state.exact = false;
  }

  const type = schema['type'] ?? inferType(schema);
  if (Array.isArray(type)) {
    const names = type.filter((t): t is string => typeof t === 'string');
    if (names.length === 0) return ANY_JSON;
    const stringRules = ['minLength', 'maxLength', 'format'].some((key) => schema[key] !== undefined);
    if (names.every((t) => PRIMITIVE_TYPES.has(t)) && !(stringRules && names.includes('string'))) {
      return { type: names as ('string' | 'number' | 'integer' | 'boolean' | 'null')[] };
    }
    return { oneOf: names.map((t) => convert({ ...schema, type: t }, state)) };
  }
  switch (type) {
    case 'object':
      return convertObject(schema, state);
    case 'array':
      return convertArray(schema, state);
    case 'string':
      return convertString(schema, state);
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return { type: type as 'number' | 'integer' | 'boolean' | 'null' };
    default:
      // No type at all: any value (unknown type names are the caller's bug, treated the same).
      if (type !== undefined) state.exact = false;
      return ANY_JSON;
  }
}

/** True when `schema` has keywords other than annotations and `ignore`. */
function hasAssertions(schema: Json, ignore: readonly string[]): boolean {
  const annotations = new Set([
    'description',
    'title',
    'default',
    'examples',
    '$schema',
    '$id',
    '$comment',
    'definitions',
    '$defs',
    'deprecated',
    'readOnly',
    'writeOnly',
    ...ignore,
  ]);
  return Object.keys(schema).some((key) => !annotations.has(key));
}

function inferType(schema: Json): string | undefined {
  if (schema['properties'] !== undefined || schema['additionalProperties'] !== undefined) return 'object';
  if (schema['items'] !== undefined || schema['prefixItems'] !== undefined) return 'array';
  return undefined;
}

function convertObject(schema: Json, state: SanitizeState): GbnfJsonSchema {
  const properties: Record<string, GbnfJsonSchema> = {};
  const given = isRecord(schema['properties']) ? schema['properties'] : {};
  for (const [key, value] of Object.entries(given)) properties[key] = convert(value, state);
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  // The grammar only writes listed properties (plus free extras when allowed); a required key that is
  // not listed may never be written.
  if (required.some((key) => typeof key !== 'string' || !(key in properties))) state.exact = false;

  const extra = schema['additionalProperties'];
  const hasProperties = Object.keys(properties).length > 0;
  let additionalProperties: boolean | GbnfJsonSchema;
  if (extra === false) additionalProperties = false;
  // JSON Schema allows extra keys by default; writing none is still valid, so listed properties suffice.
  else if (extra === undefined || extra === true) additionalProperties = !hasProperties;
  else additionalProperties = convert(extra, state);

  const result: Json = { type: 'object', properties, additionalProperties };
  for (const key of ['minProperties', 'maxProperties']) {
    if (typeof schema[key] === 'number') result[key] = schema[key];
  }
  return result as GbnfJsonSchema;
}

function convertArray(schema: Json, state: SanitizeState): GbnfJsonSchema {
  const result: Json = { type: 'array' };
  const items = schema['items'];
  const prefixItems = Array.isArray(schema['prefixItems'])
    ? schema['prefixItems']
    : Array.isArray(items)
      ? items // draft-07 tuple form
      : undefined;
  if (prefixItems !== undefined) {
    result['prefixItems'] = prefixItems.map((item) => convert(item, state));
    const rest = Array.isArray(items) ? schema['additionalItems'] : items;
    if (rest === false) result['maxItems'] = prefixItems.length;
    else if (rest !== undefined && rest !== true) result['items'] = convert(rest, state);
  } else if (items !== undefined && items !== true) {
    result['items'] = convert(items, state);
  }
  for (const key of ['minItems', 'maxItems']) {
    if (typeof schema[key] === 'number') result[key] = schema[key];
  }
  return result as GbnfJsonSchema;
}

function convertString(schema: Json, state: SanitizeState): GbnfJsonSchema {
  const format = schema['format'];
  if (typeof format === 'string' && GRAMMAR_FORMATS.has(format)) {
    return { type: 'string', format: format as 'date-time' | 'time' | 'date' };
  }
  if (format !== undefined) state.exact = false;
  const result: Json = { type: 'string' };
  for (const key of ['minLength', 'maxLength']) {
    if (typeof schema[key] === 'number') result[key] = schema[key];
  }
  return result as GbnfJsonSchema;
}

/** Every string in a converted schema, so a length budget can be shared between them. */
function stringLeaves(schema: unknown, found: Json[] = []): Json[] {
  if (Array.isArray(schema)) for (const item of schema) stringLeaves(item, found);
  else if (isRecord(schema)) {
    if (schema['type'] === 'string' && schema['format'] === undefined) found.push(schema);
    for (const value of Object.values(schema)) stringLeaves(value, found);
  }
  return found;
}

/**
 * Caps every free string so the whole call fits the output budget: a small model writing an endless
 * string would otherwise be cut off mid-object and produce no call at all. Mutates `schema`.
 */
function capStrings(schema: GbnfJsonSchema, maxChars: number): void {
  const leaves = stringLeaves(schema);
  if (leaves.length === 0) return;
  const each = Math.max(8, Math.floor(maxChars / leaves.length));
  for (const leaf of leaves) {
    const given = leaf['maxLength'];
    leaf['maxLength'] = typeof given === 'number' ? Math.min(given, each) : each;
    if (typeof leaf['minLength'] === 'number' && leaf['minLength'] > each) leaf['minLength'] = each;
  }
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
