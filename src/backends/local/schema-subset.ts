import type { GbnfJsonSchema } from 'node-llama-cpp';

/**
 * Tool schemas for the in-process model's grammar.
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
 * (`validateArguments` in `tool-grammar.ts`).
 */

/** A schema in the converter's subset, and whether it accepts exactly what the original accepts. */
export interface SanitizedSchema {
  schema: GbnfJsonSchema;
  /** False when a feature had to be dropped: the grammar is looser and the output needs validating. */
  exact: boolean;
}

export type Json = Record<string, unknown>;

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

export const isRecord = (value: unknown): value is Json =>
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
export function capStrings(schema: GbnfJsonSchema, maxChars: number): void {
  const leaves = stringLeaves(schema);
  if (leaves.length === 0) return;
  const each = Math.max(8, Math.floor(maxChars / leaves.length));
  for (const leaf of leaves) {
    const given = leaf['maxLength'];
    leaf['maxLength'] = typeof given === 'number' ? Math.min(given, each) : each;
    if (typeof leaf['minLength'] === 'number' && leaf['minLength'] > each) leaf['minLength'] = each;
  }
}
