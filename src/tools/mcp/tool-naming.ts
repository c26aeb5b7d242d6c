import { createHash } from 'node:crypto';

/** OpenAI rejects longer function names; the other providers accept at least this many. */
export const MAX_TOOL_NAME_LENGTH = 64;

const HASH_LENGTH = 8;

function sanitize(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '_');
}

function shortHash(server: string, tool: string): string {
  // Hashes the original names, so two tools that sanitise or cut to the same prefix still differ.
  return createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, HASH_LENGTH);
}

function withHash(name: string, server: string, tool: string): string {
  const suffix = `_${shortHash(server, tool)}`;
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
}

/**
 * The name the model sees for an MCP tool: `mcp__<server>__<tool>`, with characters outside
 * `[A-Za-z0-9_-]` replaced by `_`. Names over 64 characters are cut and end with a short hash of the
 * original names, so they stay unique, stable across runs and within every provider's limit.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `mcp__${sanitize(server)}__${sanitize(tool)}`;
  return name.length <= MAX_TOOL_NAME_LENGTH ? name : withHash(name, server, tool);
}

/**
 * Final names for all tools of one server, in order. Distinct originals that sanitise to the same
 * name (`a.b` and `a_b`) get the hashed form, so every final name maps back to exactly one tool.
 */
export function mcpToolNames(server: string, tools: readonly string[]): string[] {
  const taken = new Set<string>();
  return tools.map((tool) => {
    let name = mcpToolName(server, tool);
    if (taken.has(name)) name = withHash(`mcp__${sanitize(server)}__${sanitize(tool)}`, server, tool);
    taken.add(name);
    return name;
  });
}
