import type { JsonSchema } from '../../types/messages.js';
import { isRecord } from '../../util/guards.js';
import { withToolOverrides, type Tool } from '../define-tool.js';

/** A `custom_tools` entry's arguments given by the config rather than the model. */
export interface FixedArguments {
  /**
   * `preset_args`: always these values. Taken out of the schema the model sees, and a value the model
   * sends for one anyway is replaced: the config (a browser's `headless`, a sandbox's path) outranks
   * the model.
   */
  preset?: Readonly<Record<string, unknown>>;
  /** `default_params`: used when the model leaves the argument out; shown to it as the schema's default. */
  defaults?: Readonly<Record<string, unknown>>;
}

/**
 * `tool` with the config's preset arguments hidden and enforced and its default arguments filled in
 * (MassGen's `preset_args` and `default_params`). The tool itself still checks the merged arguments,
 * so a preset the tool's schema rejects is a tool error naming the argument.
 */
export function withFixedArguments(tool: Tool, fixed: FixedArguments): Tool {
  const preset = fixed.preset ?? {};
  const defaults = fixed.defaults ?? {};
  if (Object.keys(preset).length === 0 && Object.keys(defaults).length === 0) return tool;
  return withToolOverrides(tool, {
    parameters: modelSchema(tool.parameters, preset, defaults),
    arguments: (args) => {
      const merged: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(defaults)) merged[key] = structuredClone(value);
      for (const [key, value] of Object.entries(args)) {
        if (Object.hasOwn(preset, key) || value === undefined) continue;
        merged[key] = value;
      }
      for (const [key, value] of Object.entries(preset)) merged[key] = structuredClone(value);
      return merged;
    },
  });
}

/** The schema without the preset arguments, the defaulted ones optional and marked with their default. */
function modelSchema(
  schema: JsonSchema,
  preset: Readonly<Record<string, unknown>>,
  defaults: Readonly<Record<string, unknown>>,
): JsonSchema {
  const properties = isRecord(schema.properties) ? { ...schema.properties } : {};
  for (const key of Object.keys(preset)) delete properties[key];
  for (const [key, value] of Object.entries(defaults)) {
    if (Object.hasOwn(preset, key) || !isRecord(properties[key])) continue;
    properties[key] = { ...properties[key], default: value };
  }
  const fixed = new Set([...Object.keys(preset), ...Object.keys(defaults)]);
  const required = Array.isArray(schema.required)
    ? schema.required.filter((key) => typeof key === 'string' && !fixed.has(key))
    : [];
  const { required: _dropped, ...rest } = schema;
  return { ...rest, properties, ...(required.length > 0 ? { required } : {}) };
}

/** A `custom_tools` config entry's fixed arguments, or `undefined` when it has none. */
export function fixedArguments(entry: {
  preset_args?: Record<string, unknown> | undefined;
  default_params?: Record<string, unknown> | undefined;
}): FixedArguments | undefined {
  if (entry.preset_args === undefined && entry.default_params === undefined) return undefined;
  return {
    ...(entry.preset_args === undefined ? {} : { preset: entry.preset_args }),
    ...(entry.default_params === undefined ? {} : { defaults: entry.default_params }),
  };
}
