import { z } from 'zod';
import { closestMatch } from '../util/closest-match.js';
import { formatPath, isShownName, type PathSegment } from './config-path.js';

/**
 * The shape of a zod schema reduced to what key suggestions need: which keys exist where.
 * Records and scalars are leaves, so open bags (`provider_options`, `headers`) accept anything.
 */
export type SchemaNode =
  | { kind: 'object'; fields: ReadonlyMap<string, SchemaNode> }
  | { kind: 'array'; element: SchemaNode }
  /** A map with free keys (e.g. `pricing: { <model>: {...} }`) whose values have a known shape. */
  | { kind: 'record'; value: SchemaNode }
  | { kind: 'leaf' };

/** The parts of a JSON Schema (as `z.toJSONSchema` writes it) that key suggestions read. */
interface JsonSchemaLike {
  $ref?: string;
  properties?: Record<string, unknown>;
  items?: unknown;
  additionalProperties?: unknown;
  anyOf?: readonly unknown[];
  oneOf?: readonly unknown[];
  allOf?: readonly unknown[];
  type?: unknown;
}

const LEAF: SchemaNode = { kind: 'leaf' };
// Far deeper than the config schema; only guards against a recursive (lazy) schema added later.
const MAX_DEPTH = 32;

const isSchemaObject = (value: unknown): value is JsonSchemaLike =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Walks a zod schema into a {@link SchemaNode}. It reads zod's public JSON Schema export (the one
 * `--show-schema` prints) rather than zod's internals, so a zod release cannot silently change which
 * keys are known: optional/default/nullable/pipe wrappers are already resolved there, `input` side.
 */
export function schemaTree(schema: z.core.$ZodType): SchemaNode {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return jsonSchemaTree(json, json, 0);
}

/** Resolves a local `$ref` (`#`, `#/$defs/Name`), as zod writes them for recursive or registered schemas. */
function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~');
    node = isSchemaObject(node) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

function jsonSchemaTree(schema: unknown, root: unknown, depth: number): SchemaNode {
  if (!isSchemaObject(schema) || depth > MAX_DEPTH) return LEAF;
  if (typeof schema.$ref === 'string') return jsonSchemaTree(resolveRef(root, schema.$ref), root, depth + 1);
  if (isSchemaObject(schema.properties)) {
    const fields = new Map<string, SchemaNode>();
    for (const [key, child] of Object.entries(schema.properties))
      fields.set(key, jsonSchemaTree(child, root, depth + 1));
    return { kind: 'object', fields };
  }
  if (isSchemaObject(schema.items)) {
    return { kind: 'array', element: jsonSchemaTree(schema.items, root, depth + 1) };
  }
  if (isSchemaObject(schema.additionalProperties)) {
    // Open bags (record of unknown) stay leaves; maps of known objects are walked into.
    const value = jsonSchemaTree(schema.additionalProperties, root, depth + 1);
    return value.kind === 'object' ? { kind: 'record', value } : LEAF;
  }
  const options = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (options !== undefined) {
    // `nullable()` is a union with null: look through it to what it wraps.
    const present = options.filter((option) => !(isSchemaObject(option) && option.type === 'null'));
    if (present.length === 1) return jsonSchemaTree(present[0], root, depth + 1);
    return mergeObjects(present, root, depth);
  }
  return LEAF;
}

/** A union of objects offers the keys of all its members. */
function mergeObjects(options: readonly unknown[], root: unknown, depth: number): SchemaNode {
  const fields = new Map<string, SchemaNode>();
  for (const option of options) {
    const node = jsonSchemaTree(option, root, depth + 1);
    if (node.kind === 'object')
      for (const [key, child] of node.fields) if (!fields.has(key)) fields.set(key, child);
  }
  return fields.size === 0 ? LEAF : { kind: 'object', fields };
}

/** The schema node for a concrete path, or undefined when the path leaves the schema. */
export function nodeAt(tree: SchemaNode, path: readonly PathSegment[]): SchemaNode | undefined {
  let node: SchemaNode | undefined = tree;
  for (const segment of path) {
    if (node === undefined) return undefined;
    if (typeof segment === 'number') node = node.kind === 'array' ? node.element : undefined;
    else if (node.kind === 'record') node = node.value;
    else node = node.kind === 'object' ? node.fields.get(segment) : undefined;
  }
  return node;
}

/** A schema location; `null` stands for "any array index". */
type SchemaPath = (string | null)[];

/** Every object in the schema that accepts `key`, as the path of that object. */
function locationsOf(tree: SchemaNode, key: string): SchemaPath[] {
  const found: SchemaPath[] = [];
  const visit = (node: SchemaNode, at: SchemaPath): void => {
    if (node.kind === 'array') visit(node.element, [...at, null]);
    if (node.kind !== 'object') return;
    if (node.fields.has(key)) found.push(at);
    for (const [name, child] of node.fields) visit(child, [...at, name]);
  };
  visit(tree, []);
  return found;
}

function allKeys(tree: SchemaNode): Set<string> {
  const keys = new Set<string>();
  const visit = (node: SchemaNode): void => {
    if (node.kind === 'array') visit(node.element);
    if (node.kind !== 'object') return;
    for (const [name, child] of node.fields) {
      keys.add(name);
      visit(child);
    }
  };
  visit(tree);
  return keys;
}

const matches = (schemaSegment: string | null, segment: PathSegment | undefined): boolean =>
  schemaSegment === null ? typeof segment === 'number' : schemaSegment === segment;

function commonPrefixLength(location: SchemaPath, path: readonly PathSegment[]): number {
  let length = 0;
  while (length < location.length && matches(location[length] ?? null, path[length])) length++;
  return length;
}

/**
 * Renders a schema location relative to where the user is: indices shared with `path` are kept
 * (`agents[0].backend`), any other index is shown as `[]` (`agents[].backend`).
 */
function renderLocation(location: SchemaPath, path: readonly PathSegment[]): string {
  const prefix = commonPrefixLength(location, path);
  let out = '';
  location.forEach((segment, index) => {
    if (segment === null) {
      out += index < prefix ? `[${String(path[index])}]` : '[]';
      return;
    }
    const piece = formatPath([segment]);
    out += out === '' || piece.startsWith('[') ? piece : `.${piece}`;
  });
  return out === '' ? 'the top level' : out;
}

/**
 * The best place for a misplaced key: closest to where the user wrote it, then under a top-level key
 * the config already uses (so `agent:` configs are not told about `agents[]`), then the shallowest.
 */
function bestLocation(
  tree: SchemaNode,
  key: string,
  path: readonly PathSegment[],
  data: unknown,
): string | undefined {
  const root = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  const scored = locationsOf(tree, key).map((location) => ({
    location,
    prefix: commonPrefixLength(location, path),
    used: typeof location[0] === 'string' && root[location[0]] !== undefined ? 1 : 0,
  }));
  scored.sort((a, b) => b.prefix - a.prefix || b.used - a.used || a.location.length - b.location.length);
  const best = scored[0];
  return best === undefined ? undefined : renderLocation(best.location, path);
}

/** Where a key sits in words: `agents[0].backend`, or `the top level`. */
export function describeLocation(path: readonly PathSegment[]): string {
  return path.length === 0 ? 'the top level' : formatPath(path);
}

/**
 * Explains an unknown key found in the object at `objectPath`: a near-miss of a key at that level
 * ("did you mean"), a valid key that belongs elsewhere ("it belongs under"), or the keys allowed there.
 *
 * A key that is exactly right but misplaced beats a fuzzy match at the same level: `id` at the top
 * level is far more likely a misplaced agent id than a typo of `ui`.
 */
export function explainUnknownKey(
  tree: SchemaNode,
  objectPath: readonly PathSegment[],
  key: string,
  data: unknown,
): { message: string; hint: string | undefined } {
  const node = nodeAt(tree, objectPath);
  const here = node?.kind === 'object' ? [...node.fields.keys()] : [];
  if (!isShownName(key))
    return {
      message: `unknown key at ${describeLocation(objectPath)} (not shown: it does not look like a config key — is this a massgen config file?)`,
      hint: here.length > 0 ? `valid keys here: ${here.join(', ')}` : undefined,
    };
  const message = `unknown key "${key}" at ${describeLocation(objectPath)}`;
  const sameCase = here.find((candidate) => candidate.toLowerCase() === key.toLowerCase());
  if (sameCase !== undefined)
    return { message, hint: `did you mean "${sameCase}"? (keys are case-sensitive)` };

  // A key here that the unknown one begins as a word of (`display` → `display_type`) beats the same
  // word elsewhere (`tools.computer.display`).
  const longer = here.find((candidate) => candidate.startsWith(`${key}_`));
  if (longer !== undefined) return { message, hint: `did you mean "${longer}"?` };

  const elsewhere = bestLocation(tree, key, objectPath, data);
  if (elsewhere !== undefined) return { message, hint: `it belongs under ${elsewhere}` };

  const near = closestMatch(key, here);
  if (near !== undefined) return { message, hint: `did you mean "${near}"?` };

  const nearElsewhere = closestMatch(key, allKeys(tree));
  if (nearElsewhere !== undefined) {
    const location = bestLocation(tree, nearElsewhere, objectPath, data);
    if (location !== undefined)
      return { message, hint: `did you mean "${nearElsewhere}"? it belongs under ${location}` };
  }
  return { message, hint: here.length > 0 ? `valid keys here: ${here.join(', ')}` : undefined };
}
