import { formatPath, type PathSegment } from './config-path.js';
import type { ConfigProblem } from './diagnostics.js';
import { MASSGEN_KEYS, type CompatRule } from './massgen-compat-table.js';
import { commandFiltersToRules, writeModeToContextPaths } from './massgen-compat-permissions.js';
import { skillsKeysToSkills } from './massgen-compat-skills.js';
import { multimodalToolsToMediaTools } from './massgen-compat-media.js';
import { uploadFilesToAttachments } from './massgen-compat-uploads.js';
import { massgenHooksToClaude } from './massgen-compat-hooks.js';
import { displayToUi } from './massgen-compat-display.js';
import { isRecord } from '../util/guards.js';

/**
 * MassGen's config format, read as it is: a pass over the raw YAML before the schema sees it. It
 * rewrites MassGen's forms into massgen's (`mcp_servers` as a list, list-valued custom tool names,
 * renamed keys) and takes out the keys massgen handles itself or does not support, each with a note
 * that names the key — so a MassGen config validates, and nothing is silently ignored. Typos are left
 * alone for the schema to report with suggestions.
 */

/** The config after the pass, and what was said about it (shown as warnings). */
export interface CompatResult {
  value: unknown;
  notes: ConfigProblem[];
}

type Node = Record<string, unknown>;

/** Sets `dotted` (relative to `parent`), creating objects on the way; false when a value is in the way. */
function setPath(parent: Node, dotted: string, value: unknown): boolean {
  const keys = dotted.split('.');
  let node = parent;
  for (const key of keys.slice(0, -1)) {
    if (node[key] === undefined) node[key] = {};
    if (!isRecord(node[key])) return false;
    node = node[key];
  }
  const last = keys.at(-1) as string;
  if (node[last] !== undefined) return false;
  if (value !== undefined) node[last] = value;
  return true;
}

function applyRule(rule: CompatRule, node: Node, key: string, path: PathSegment[], notes: ConfigProblem[]) {
  const value = node[key];
  delete node[key];
  const where = `${formatPath(path)} (MassGen)`;
  if (rule.kind === 'metadata') return;
  if (rule.kind !== 'alias') {
    notes.push({ path, at: 'key', message: `${where}: ${rule.note}` });
    return;
  }
  const converted = rule.convert ? rule.convert(value) : { value };
  if (converted?.note) notes.push({ path, at: 'key', message: `${where}: ${converted.note}` });
  if (!setPath(node, rule.to, converted?.value)) {
    notes.push({ path, at: 'key', message: `${where}: ignored, ${rule.to} is set too` });
  }
}

/** A table row as seen from one prefix: its next key, and whether it ends there or goes deeper. */
interface Row {
  head: string;
  rule: CompatRule;
  leaf: boolean;
  /** Deeper rows without a `*` on the way, applied by descending into `node[head]`. */
  descend: boolean;
}

/** The table's rows under each prefix, split once (the prefixes come from the table: a bounded set). */
const rowsByPrefix = new Map<string, Row[]>();

function rowsUnder(prefix: string): Row[] {
  let rows = rowsByPrefix.get(prefix);
  if (rows !== undefined) return rows;
  rows = [];
  for (const [full, rule] of Object.entries(MASSGEN_KEYS)) {
    if (!full.startsWith(prefix)) continue;
    const [head, ...tail] = full.slice(prefix.length).split('.');
    // Rows for agents and backends are applied to each of them by readMassGenFormat.
    if (head === undefined || (prefix === '' && (head === 'agent' || head === 'backend'))) continue;
    rows.push({ head, rule, leaf: tail.length === 0, descend: head !== '*' && !tail.includes('*') });
  }
  rowsByPrefix.set(prefix, rows);
  return rows;
}

/** Applies every table row under `prefix` (e.g. `backend.`) to `node`, found at `path`. */
function applyRules(node: Node, prefix: string, path: PathSegment[], notes: ConfigProblem[]): void {
  const visited = new Set<string>();
  for (const { head, rule, leaf, descend } of rowsUnder(prefix)) {
    if (leaf) {
      if (head in node) applyRule(rule, node, head, [...path, head], notes);
    } else if (descend && isRecord(node[head]) && !visited.has(head)) {
      visited.add(head);
      applyRules(node[head], `${prefix}${head}.`, [...path, head], notes);
    }
  }
}

/** Rows for each element of a list-or-map at `node[key]` (custom_tools.*, mcp_servers.*). */
function applyToEach(node: Node, key: string, prefix: string, path: PathSegment[], notes: ConfigProblem[]) {
  const items = node[key];
  const entries: [PathSegment, unknown][] = Array.isArray(items)
    ? items.map((item, i) => [i, item])
    : isRecord(items)
      ? Object.entries(items)
      : [];
  for (const [k, item] of entries)
    if (isRecord(item)) applyRules(item, `${prefix}*.`, [...path, key, k], notes);
}

/** MassGen writes `mcp_servers` as a list of `{name, …}`; massgen as a map by name. */
function mcpListToMap(backend: Node): void {
  const list = backend.mcp_servers;
  if (!Array.isArray(list)) return;
  const names = list.map((item) => (isRecord(item) ? item.name : undefined));
  // Leave anything unnamed or repeated for the schema to report as it is.
  if (names.some((n) => typeof n !== 'string') || new Set(names).size !== names.length) return;
  backend.mcp_servers = Object.fromEntries(
    list.map((item) => {
      const { name, ...server } = item as Node;
      return [name as string, server];
    }),
  );
}

/** `${cwd}` in MCP arguments is the working directory, as in MassGen. */
function expandCwd(backend: Node, cwd: string | undefined): void {
  if (cwd === undefined || !isRecord(backend.mcp_servers)) return;
  for (const server of Object.values(backend.mcp_servers)) {
    if (!isRecord(server) || !Array.isArray(server.args)) continue;
    server.args = server.args.map((arg) => (typeof arg === 'string' ? arg.replaceAll('${cwd}', cwd) : arg));
  }
}

/**
 * MassGen lets one custom tool entry name several functions of a module (`name`, `function` and
 * `description` as lists); massgen has one entry per tool. Entries without `path` name a tool of
 * MassGen's own library, which massgen does not ship: left out with a note.
 */
function expandCustomTools(backend: Node, path: PathSegment[], notes: ConfigProblem[]): void {
  const tools = backend.custom_tools;
  if (!Array.isArray(tools)) return;
  const out: unknown[] = [];
  tools.forEach((tool, index) => {
    if (!isRecord(tool)) return void out.push(tool);
    const where = [...path, 'custom_tools', index];
    if (tool.path === undefined) {
      const name = Array.isArray(tool.name) ? tool.name.join(', ') : String(tool.name ?? '');
      notes.push({
        path: where,
        message: `${formatPath(where)} (MassGen): "${name}" is a tool of MassGen's built-in library, which massgen does not ship: left out`,
        hint: 'give path: to a module that defines the function',
      });
      return;
    }
    if (!Array.isArray(tool.name)) return void out.push(tool);
    const pick = (value: unknown, i: number) => (Array.isArray(value) ? value[i] : value);
    tool.name.forEach((name, i) => {
      const one: Node = { ...tool, name, function: pick(tool.function, i) };
      // preset_args may be one object for every function or a list with one per function.
      for (const key of ['description', 'preset_args'] as const) {
        if (tool[key] !== undefined) one[key] = pick(tool[key], i);
        if (one[key] === undefined || one[key] === null) delete one[key];
      }
      out.push(one);
    });
  });
  backend.custom_tools = out;
}

/** Rewrites a raw config in MassGen's format into massgen's; see the module comment. */
export function readMassGenFormat(raw: unknown, options: { cwd?: string } = {}): CompatResult {
  const notes: ConfigProblem[] = [];
  if (!isRecord(raw)) return { value: raw, notes };
  const root = structuredClone(raw);
  writeModeToContextPaths(root, notes);
  skillsKeysToSkills(root, notes);
  displayToUi(root, notes);
  applyRules(root, '', [], notes);
  const agents: [Node, PathSegment[]][] = [];
  if (Array.isArray(root.agents))
    root.agents.forEach((a, i) => isRecord(a) && agents.push([a, ['agents', i]]));
  if (isRecord(root.agent)) agents.push([root.agent, ['agent']]);
  uploadFilesToAttachments(root, agents, notes);
  massgenHooksToClaude(root, agents, notes);
  for (const [agent, path] of agents) {
    applyRules(agent, 'agent.', path, notes);
    const backend = agent.backend;
    if (!isRecord(backend)) continue;
    const at = [...path, 'backend'];
    commandFiltersToRules(agent, backend, at, notes);
    applyRules(backend, 'backend.', at, notes);
    applyToEach(backend, 'mcp_servers', 'backend.mcp_servers.', at, notes);
    mcpListToMap(backend);
    expandCwd(backend, options.cwd);
    applyToEach(backend, 'custom_tools', 'backend.custom_tools.', at, notes);
    multimodalToolsToMediaTools(backend, at, notes);
    expandCustomTools(backend, at, notes);
  }
  return { value: root, notes };
}
