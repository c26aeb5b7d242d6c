/** A plain mapping (not null, not an array): what JSON objects, YAML mappings and tool arguments are. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `code` of a Node system error (`ENOENT`, `EEXIST`, …), or undefined for anything else. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}
