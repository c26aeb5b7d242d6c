import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { backendFacts } from '../backends/backend-table.js';
import { formatPath, type PathSegment } from '../config/config-path.js';
import { interpolateString } from '../config/interpolate-env.js';
import { parseYamlSource } from '../config/yaml-source.js';
import { isRecord } from '../util/guards.js';
import { inertText } from '../util/terminal-text.js';

/**
 * What a config file would do on this machine, read from its text as written (before `${VAR}`s are
 * filled in), for the question whether to trust a project: shown to the user, never acted on.
 */
export interface ConfigSummary {
  /** Programs it starts: MCP servers, coding-agent harnesses, the Python interpreter, unsandboxed commands. */
  starts: string[];
  /** Code it loads into massgen itself: custom tool modules, agent modules, adapters. */
  loads: string[];
  /** Where requests go and which variables' values go with them. */
  sends: string[];
  /** The module files among {@link loads}, absolute: trusting the config trusts them as they are. */
  codeFiles: string[];
  /** Set when the text is not YAML: then nothing else could be told. */
  problem?: string;
}

const PLAIN = /^[\w@%+=:,./~-]*$/;
const MAX_SHOWN = 160;

/** A value from the file as one inert line: quoted when it is not plain, cut when long. */
export function shownValue(value: string): string {
  const cut = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
  return inertText(PLAIN.test(cut) && cut !== '' ? cut : JSON.stringify(cut));
}

/** The variable names `${…}` references in every string under `node` name, in order of first use. */
function variablesIn(node: unknown, into = new Set<string>()): Set<string> {
  if (typeof node === 'string') {
    // interpolateString reads exactly the references a run would: record the names it asks for.
    const recorder = new Proxy({} as Record<string, string | undefined>, {
      get: (_target, name) => {
        if (typeof name === 'string') into.add(name);
        return undefined;
      },
    });
    interpolateString(node, recorder);
  } else if (Array.isArray(node)) for (const item of node) variablesIn(item, into);
  else if (isRecord(node)) for (const item of Object.values(node)) variablesIn(item, into);
  return into;
}

/** The variables an object sends itself: its own strings, its `args`, `env` and `headers` (not nested servers). */
function ownVariables(node: Record<string, unknown>): Set<string> {
  const vars = new Set<string>();
  for (const [key, value] of Object.entries(node))
    if (typeof value === 'string' || key === 'args' || key === 'env' || key === 'headers')
      variablesIn(value, vars);
  return vars;
}

const names = (vars: Iterable<string>) => [...vars].map((name) => `\${${name}}`).join(', ');

/** Where a module named in the config is: beside the config, else in the project (as a run resolves it). */
function moduleFile(written: string, baseDir: string, projectDir: string): string | undefined {
  // A Python module name (`pkg.mod`) is found on Python's path, not here.
  if (!/[\\/]|\.(?:[cm]?[jt]s|py)$/.test(written)) return undefined;
  const beside = path.resolve(baseDir, written);
  const fromProject = path.resolve(projectDir, written);
  return existsSync(beside) || !existsSync(fromProject) ? beside : fromProject;
}

/**
 * Summarises the config file `file` (see {@link ConfigSummary}). Module paths resolve against the
 * file's folder, else `projectDir`, as a run's do.
 */
export function summarizeConfigFile(file: string, projectDir: string): ConfigSummary {
  const summary: ConfigSummary = { starts: [], loads: [], sends: [], codeFiles: [] };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { ...summary, problem: 'cannot be read' };
  }
  const parsed = parseYamlSource(text, path.extname(file).toLowerCase() === '.json' ? 'JSON' : 'YAML');
  if (parsed.diagnostics.length > 0) return { ...summary, problem: 'is not valid YAML' };
  const baseDir = path.dirname(file);
  const at = (where: PathSegment[]) => formatPath(where) || 'config';
  const load = (where: PathSegment[], written: unknown) => {
    if (typeof written !== 'string') return;
    summary.loads.push(`${at(where)}: ${shownValue(written)}`);
    const module = moduleFile(written, baseDir, projectDir);
    if (module) summary.codeFiles.push(module);
  };

  const visit = (node: unknown, where: PathSegment[]) => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, [...where, index]));
      return;
    }
    if (!isRecord(node)) return;
    if (typeof node.command === 'string') {
      const args = Array.isArray(node.args) ? node.args.map((a) => shownValue(String(a))) : [];
      const vars = ownVariables(node);
      summary.starts.push(
        `${at(where)}: ${[shownValue(node.command), ...args].join(' ')}${vars.size > 0 ? ` (gets ${names(vars)})` : ''}`,
      );
    }
    if (node.execution_mode === 'local')
      summary.starts.push(
        `${at([...where, 'execution_mode'])}: local — commands run on this machine, unsandboxed`,
      );
    const url = stringOr(node.base_url) ?? stringOr(node.url);
    const provider = stringOr(node.provider);
    // From the backend table: the summary is read before (and without) loading any backend.
    const factory =
      typeof node.type === 'string' ? backendFacts(node.type, { baseUrl: url, provider }) : undefined;
    if (factory?.harness)
      summary.starts.push(`${at(where)}: the ${factory.type} coding agent (a program of its own)`);
    if (factory && typeof node.module === 'string') load([...where, 'module'], node.module);
    if (url !== undefined || factory) {
      const vars = ownVariables(node);
      // A backend without api_key sends the key of its own variable, wherever base_url points.
      if (factory && node.api_key === undefined) for (const name of factory.keyEnvs) vars.add(name);
      const key = node.base_url === undefined && node.url !== undefined ? 'url' : 'base_url';
      const endpoint = url ?? factory?.defaultBaseUrl;
      if (url !== undefined || vars.size > 0)
        summary.sends.push(
          `${at(url === undefined ? where : [...where, key])}: ${endpoint === undefined ? `${factory?.type} (its own endpoint)` : shownValue(endpoint)}${vars.size > 0 ? ` ← ${names(vars)}` : ''}`,
        );
    }
    if (Array.isArray(node.custom_tools))
      node.custom_tools.forEach((tool, index) => {
        if (isRecord(tool)) load([...where, 'custom_tools', index, 'path'], tool.path);
      });
    if (where.length === 0 && isRecord(node.adapters))
      for (const [name, module] of Object.entries(node.adapters)) load(['adapters', name], module);
    if (where.length === 0 && typeof node.python === 'string')
      summary.starts.push(`python: ${shownValue(node.python)} (runs Python tools and agents)`);
    for (const [key, value] of Object.entries(node)) {
      if (key !== 'custom_tools' && key !== 'adapters') visit(value, [...where, key]);
    }
  };
  visit(parsed.data, []);
  return summary;
}

const stringOr = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
