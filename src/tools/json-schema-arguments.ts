import { createRequire } from 'node:module';
import type { Ajv as AjvClass, ErrorObject } from 'ajv';
import type { JsonSchema } from '../types/messages.js';

// ajv (64 modules) loads on the first schema compiled, not at start: a run whose agents call no tool
// with a JSON Schema never needs it. It is CommonJS, so `require` keeps compiling synchronous.
let ajvClass: typeof AjvClass | undefined;
const loadAjv = (): typeof AjvClass =>
  (ajvClass ??= (createRequire(import.meta.url)('ajv') as { Ajv: typeof AjvClass }).Ajv);

/** Checks a value and returns one readable line per violation (empty: valid). */
export type ArgumentsValidator = (value: unknown) => string[];

function describe(error: ErrorObject): string {
  const where = `arguments${error.instancePath.replace(/\//g, '.')}`;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    return `${where} has an unexpected property "${String(params.additionalProperty)}"`;
  }
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    return `${where} must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return `${where} ${error.message ?? 'is invalid'}`;
}

/**
 * Compiles a tool's JSON Schema. MCP servers declare draft 2020-12 or draft-07 and add keywords of
 * their own, so strict mode is off and `$schema` is ignored. One ajv instance per schema, so two
 * tools using the same `$id` cannot collide. With `useDefaults`, defaults are filled into the
 * checked value in place.
 *
 * @throws when the schema itself is invalid.
 */
export function compileArgumentsValidator(
  schema: JsonSchema,
  options: { useDefaults?: boolean } = {},
): ArgumentsValidator {
  const { $schema: _ignored, ...rest } = schema;
  const Ajv = loadAjv();
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    validateFormats: false,
    logger: false,
    useDefaults: options.useDefaults ?? false,
  });
  const validate = ajv.compile(rest);
  return (value) => (validate(value) ? [] : [...new Set((validate.errors ?? []).map(describe))]);
}

const cache = new Map<string, ArgumentsValidator | null>();

/**
 * Checks tool arguments against the tool's JSON Schema, caching compiled schemas. A schema that does
 * not compile is left to the tool itself to enforce (no violations reported).
 */
export function jsonSchemaViolations(schema: JsonSchema, value: unknown): string[] {
  const key = JSON.stringify(schema);
  let validator = cache.get(key);
  if (validator === undefined) {
    try {
      validator = compileArgumentsValidator(schema);
    } catch {
      validator = null;
    }
    if (cache.size > 500) cache.clear();
    cache.set(key, validator);
  }
  return validator ? validator(value) : [];
}
