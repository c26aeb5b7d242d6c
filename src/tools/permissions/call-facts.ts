/**
 * What the permission rules look at in a tool call, read from its name and arguments alone (pure: no
 * disk, no network): the paths it names, the shell command it runs (split into its simple commands),
 * the network hosts it names, and the MCP server and tool behind an `mcp__<server>__<tool>` name.
 */

/** Argument names that carry paths (the built-in file tools, MCP filesystem-style servers). */
export const PATH_ARGUMENT_KEYS: ReadonlySet<string> = new Set([
  'path',
  'paths',
  'source',
  'destination',
  'file',
  'filename',
  'directory',
  'dir',
  'target',
]);

const COMMAND_KEYS = ['command', 'cmd'];
const URL_KEYS = new Set(['url', 'uri', 'href', 'endpoint', 'link']);
const HOST_KEYS = new Set(['host', 'hostname', 'domain']);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const strings = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value)
      ? value.filter((v): v is string => typeof v === 'string')
      : [];

/** The call's arguments as an object (a model may send none, or a JSON string it failed to parse). */
export function argumentsOf(args: unknown): Record<string, unknown> {
  return isRecord(args) ? args : {};
}

/** Path arguments as given; `list_directory` without one lists the workspace (`.`). */
export function pathsOf(toolName: string, args: unknown): string[] {
  const record = argumentsOf(args);
  const found = Object.entries(record).flatMap(([key, value]) =>
    PATH_ARGUMENT_KEYS.has(key) ? strings(value) : [],
  );
  if (found.length === 0 && toolName === 'list_directory') return ['.'];
  return found;
}

/** The shell command the call runs (`execute_command`, MCP command-line servers), or null. */
export function commandOf(args: unknown): string | null {
  const record = argumentsOf(args);
  for (const key of COMMAND_KEYS) {
    const value = record[key];
    if (typeof value === 'string') return value;
  }
  return null;
}

/** A shell command cut into its simple commands, and whether it substitutes commands (`$(…)`, backticks). */
export interface CommandParts {
  segments: string[];
  substitution: boolean;
}

/**
 * Splits on the shell's control operators outside quotes (`;`, `&&`, `||`, `|`, `&`, newlines) and
 * notes command substitution. Each part loses leading `VAR=value` assignments and grouping (`(`, `{`),
 * so `FOO=1 git push` is seen as `git push`. A convenience for matching, not a shell parser: the
 * boundary is the sandbox (docs/workspaces.md).
 */
export function splitCommand(command: string): CommandParts {
  const segments: string[] = [];
  let current = '';
  let quote: '"' | "'" | null = null;
  let substitution = false;
  const push = () => {
    const cleaned = current
      .trim()
      .replace(/^[({!\s]+/, '')
      .replace(/[)}\s]+$/, '')
      .replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+)+/, '')
      .trim();
    if (cleaned !== '') segments.push(cleaned);
    current = '';
  };
  for (let i = 0; i < command.length; i++) {
    const ch = command[i] as string;
    const next = command[i + 1];
    if (quote === "'") {
      current += ch;
      if (ch === "'") quote = null;
      continue;
    }
    if (ch === '\\' && next !== undefined) {
      current += ch + next;
      i++;
      continue;
    }
    if (ch === '`' || (ch === '$' && next === '(') || ((ch === '<' || ch === '>') && next === '(')) {
      substitution = true;
    }
    if (quote === '"') {
      current += ch;
      if (ch === '"') quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
      continue;
    }
    // `2>&1`, `&>file`, `>&2` are redirections, not a background `&`.
    if (ch === '&' && (/[<>]$/.test(current) || next === '>')) {
      current += ch;
      continue;
    }
    if (ch === ';' || ch === '\n' || ch === '|' || ch === '&') {
      push();
      if ((ch === '|' || ch === '&') && next === ch) i++;
      continue;
    }
    current += ch;
  }
  push();
  return { segments, substitution };
}

const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>`]+/gi;

function hostOfUrl(text: string): string | null {
  try {
    const host = new URL(text).hostname.toLowerCase();
    return host === '' ? null : host.replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
}

/**
 * Network hosts the call names: in URL-like arguments (`url`, `endpoint`, …), host arguments
 * (`host`, `domain`), any string argument that is a URL, and URLs inside a shell command.
 */
export function hostsOf(args: unknown): string[] {
  const record = argumentsOf(args);
  const hosts = new Set<string>();
  for (const [key, value] of Object.entries(record)) {
    for (const text of strings(value)) {
      if (HOST_KEYS.has(key)) {
        const host = text.trim().toLowerCase();
        if (host !== '') hosts.add(host);
        continue;
      }
      const candidates =
        URL_KEYS.has(key) && !text.includes('://') ? [`https://${text}`] : (text.match(URL_PATTERN) ?? []);
      for (const candidate of candidates) {
        const host = hostOfUrl(candidate);
        if (host !== null) hosts.add(host);
      }
    }
  }
  return [...hosts];
}

/** `mcp__<server>__<tool>` split at its first `__` after the prefix; null for other tools. */
export function mcpPartsOf(toolName: string): { server: string; tool: string } | null {
  if (!toolName.startsWith('mcp__')) return null;
  const rest = toolName.slice('mcp__'.length);
  const cut = rest.indexOf('__');
  if (cut <= 0 || cut + 2 >= rest.length) return null;
  return { server: rest.slice(0, cut), tool: rest.slice(cut + 2) };
}
