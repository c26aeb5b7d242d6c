import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  loadDotEnv,
  validateConfigFile,
  type ConfigDiagnostic,
  type MassGenConfig,
} from '../config/index.js';
import { formatPath, parsePath, type PathSegment } from '../config/config-path.js';
import { checkConfig } from '../config/parse-config.js';
import { inFileOrder } from '../config/diagnostics.js';
import { parseYamlSource, type ParsedSource } from '../config/yaml-source.js';
import { ConfigError } from '../types/errors.js';
import { isRecord } from '../util/guards.js';
import { findBackendFactory } from '../backends/index.js';
import { loadRunSkills } from './agent-skills.js';
import { modelLabel, resolveAgentSettings, type Env } from './build-agents.js';
import { resolveMediaModels } from './media-generation-provider.js';
import { resolveContextPaths, workspaceProblems } from './build-workspaces.js';
import { resolveConfigPath } from './config-relative.js';
import { agentRoute, isPythonImportName } from './external-agents.js';
import { describeSandbox, planCommands } from './sandboxes.js';

export interface ValidationReport {
  file: string;
  valid: boolean;
  errors: ConfigDiagnostic[];
  /** Problems that do not make the file invalid but will stop a run here (e.g. an unset API key). */
  warnings: ConfigDiagnostic[];
  agents: { id: string; backend: string; model: string }[];
  /** The sandbox execute_command gets on this machine, in a sentence; null when no agent runs commands. */
  sandbox: string | null;
}

/**
 * What `massgen --validate FILE` reports: schema problems, then what only the app can check
 * (backend types exist, API keys are available in this environment) — all of them at once: the app's
 * checks also run past schema problems (on the file with the offending keys taken out), and each carries
 * the line and column of the key it is about.
 */
export function validateConfig(file: string, options: { cwd?: string; env?: Env } = {}): ValidationReport {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const env = options.env ?? loadDotEnv(cwd);
  // An unset ${VAR} is a problem of this environment, not of the file: report it as a warning and
  // check the rest of the file with a placeholder in its place.
  const unset = (d: ConfigDiagnostic) => /environment variable (\S+) is not set/.exec(d.message)?.[1];
  let result = validateConfigFile(file, { cwd, env });
  const missingVars = result.diagnostics.flatMap((d) => unset(d) ?? []);
  const warnings = result.diagnostics.filter((d) => unset(d) !== undefined);
  if (missingVars.length > 0) {
    const placeholders = Object.fromEntries(missingVars.map((name) => [name, `<unset ${name}>`]));
    result = validateConfigFile(file, { cwd, env: { ...env, ...placeholders } });
  }
  const report: ValidationReport = {
    file: path.resolve(cwd, file),
    valid: result.valid,
    errors: [...result.diagnostics],
    warnings: [...result.warnings, ...warnings],
    agents: [],
    sandbox: null,
  };
  const source = readSource(report.file);
  const checkEnv = { ...env, ...Object.fromEntries(missingVars.map((name) => [name, `<unset ${name}>`])) };
  const past = result.config
    ? undefined
    : source && checkPastSchemaProblems(source, result.diagnostics, { env: checkEnv, cwd });
  const config: MassGenConfig | undefined = result.config ?? past?.config;
  if (!config) return report;
  if (result.config) {
    report.agents = config.agents.map((a) => ({
      id: a.id,
      backend: a.backend.type,
      model: modelLabel(a.backend),
    }));
  }
  const schemaErrors = report.errors.length;
  const schemaWarnings = report.warnings.length;
  // Check agents one by one, and each agent for everything, so every problem is reported, not just the first.
  config.agents.forEach((agent, index) => {
    const problems: ConfigError[] = [];
    try {
      resolveAgentSettings(agent, index, env, problems);
      resolveMediaModels(agent, env, { index, problems });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(error);
    }
    for (const error of problems) {
      const diagnostic: ConfigDiagnostic = {
        path: error.path ?? `agents[${index}]`,
        message: error.message,
        ...(error.hint ? { hint: error.hint } : {}),
      };
      // A missing key is a fact of this environment, not of the file.
      if (error.path?.endsWith('.api_key') || error.path?.endsWith('.api_key_env'))
        report.warnings.push(diagnostic);
      else report.errors.push(diagnostic);
    }
  });
  report.errors.push(...workspaceProblems(config).map(asDiagnostic));
  // Where commands will run is a fact of this machine, not of the file: warnings.
  config.agents.forEach((agent, index) => {
    if (agent.backend.cwd === undefined || agent.backend.enable_code_execution !== true) return;
    report.sandbox = describeSandbox(env);
    try {
      const plan = planCommands(agent, index, env);
      if (plan.mode === null) {
        report.warnings.push({ path: plan.warning.key ?? '', message: plan.warning.message });
      } else if (plan.mode === 'local') {
        report.warnings.push({
          path: `agents[${index}].backend.execution_mode`,
          message: `${agent.id} runs execute_command unsandboxed (execution_mode: local)`,
          hint: 'use execution_mode: sandbox (the default) or docker to confine its commands',
        });
      }
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      report.warnings.push(asDiagnostic(error));
    }
  });
  try {
    const notes: string[] = [];
    resolveContextPaths(config, path.dirname(report.file), { projectDir: cwd, notes });
    report.warnings.push(...notes.map((message) => ({ path: '', message })));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    report.errors.push(asDiagnostic(error));
  }
  // Agents from other frameworks: their module must be there (it is imported only when a run starts).
  config.agents.forEach((agent, index) => {
    const { module } = agent.backend;
    if (module === undefined || !findBackendFactory(agent.backend.type)?.external) return;
    // A Python agent may name a module (`pkg.mod`) rather than a file.
    if (['external', 'ag2'].includes(agent.backend.type) && isPythonImportName(module)) return;
    const where = `agents[${index}].backend.module`;
    const file = resolveConfigPath(module, where, { baseDir: path.dirname(report.file), projectDir: cwd });
    if (!existsSync(file))
      report.errors.push({ path: where, message: `${where}: agent module not found: ${file}` });
  });
  // Attachments are read when a run starts (URLs downloaded then): a missing file is said now.
  config.attachments.forEach((file, index) => {
    if (/^https?:\/\//i.test(file)) return;
    const where = `attachments[${index}]`;
    const found = resolveConfigPath(file, where, { baseDir: path.dirname(report.file), projectDir: cwd });
    if (!existsSync(found))
      report.warnings.push({
        path: where,
        message: `${where}: file not found: ${found} (a run stops there)`,
      });
  });
  const toolProblems = toolFileProblems(config, { baseDir: path.dirname(report.file), projectDir: cwd }, env);
  report.errors.push(...toolProblems.errors);
  report.warnings.push(...toolProblems.warnings);
  // Skills: a malformed SKILL.md or a missing folder is a warning, as at the start of a run.
  const skills = loadRunSkills(config, { baseDir: path.dirname(report.file), projectDir: cwd });
  report.warnings.push(...(skills?.warnings ?? []).map((w) => ({ path: w.key ?? '', message: w.message })));
  if (past) {
    // Found on the file without the keys the schema refused: a problem about one of those keys (or the
    // key a misspelt one was meant to be) is that problem again, not a new one. An agent whose id was
    // refused is still named by the id the file gives it.
    const known = (d: ConfigDiagnostic) => past.covered.has(rawPathKey(source!.data, d.path));
    const rawAgents = isRecord(source!.data) && Array.isArray(source!.data.agents) ? source!.data.agents : [];
    const renamed = config.agents.flatMap((agent, index) => {
      const written: unknown = isRecord(rawAgents[index]) ? rawAgents[index].id : undefined;
      return typeof written === 'string' && written !== agent.id
        ? [[`agents[${index}] (${agent.id})`, `agents[${index}] (${written})`] as const]
        : [];
    });
    const named = (d: ConfigDiagnostic): ConfigDiagnostic => ({
      ...d,
      message: renamed.reduce((text, [from, to]) => text.split(from).join(to), d.message),
    });
    const fresh = (list: ConfigDiagnostic[], from: number) =>
      list
        .slice(from)
        .filter((d) => !known(d))
        .map(named);
    report.errors = [...report.errors.slice(0, schemaErrors), ...fresh(report.errors, schemaErrors)];
    report.warnings = [
      ...report.warnings.slice(0, schemaWarnings),
      ...fresh(report.warnings, schemaWarnings),
    ];
  }
  if (source) {
    report.errors = inFileOrder(report.errors.map((d) => withPosition(d, source)));
    report.warnings = inFileOrder(report.warnings.map((d) => withPosition(d, source)));
  }
  report.valid = report.errors.length === 0;
  return report;
}

/** The file's YAML (or JSON) again, for positions; undefined when it cannot be read or parsed. */
function readSource(file: string): ParsedSource | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const parsed = parseYamlSource(text, path.extname(file).toLowerCase() === '.json' ? 'JSON' : 'YAML');
  return parsed.diagnostics.length === 0 ? parsed : undefined;
}

/**
 * `agents[0]…` in the file's own shape: a one-agent file (`agent:`) has no `agents` list. Undefined
 * when the path does not start at a key the file has (a diagnostic about the whole run).
 */
function rawPath(data: unknown, written: string): PathSegment[] | undefined {
  const segments = parsePath(written);
  if (!segments || segments.length === 0 || !isRecord(data)) return undefined;
  if (segments[0] === 'agents' && !('agents' in data) && 'agent' in data && segments[1] === 0)
    return ['agent', ...segments.slice(2)];
  return typeof segments[0] === 'string' && segments[0] in data ? segments : undefined;
}

const rawPathKey = (data: unknown, written: string): string => {
  const segments = rawPath(data, written);
  return segments ? formatPath(segments) : written;
};

/** `diagnostic` with the line and column of the key it is about, when it has none yet. */
function withPosition(diagnostic: ConfigDiagnostic, source: ParsedSource): ConfigDiagnostic {
  if (diagnostic.line !== undefined) return diagnostic;
  const segments = rawPath(source.data, diagnostic.path);
  const position = segments && source.locate({ path: segments, message: diagnostic.message, at: 'key' });
  return position ? { ...diagnostic, line: position.line, column: position.column } : diagnostic;
}

/** Removes the value at `segments` from `root`; false when there was nothing there. */
function removeAt(root: unknown, segments: readonly PathSegment[]): boolean {
  let node: unknown = root;
  for (const segment of segments.slice(0, -1)) {
    if (!isRecord(node) && !Array.isArray(node)) return false;
    node = (node as Record<PathSegment, unknown>)[segment];
  }
  const last = segments.at(-1);
  if (last === undefined || !isRecord(node) || Array.isArray(node) || !(last in node)) return false;
  delete node[last];
  return true;
}

/**
 * A config to run the app's checks on when the schema refused the file: the file without the keys it
 * refused (each falls back to its default), if that makes it valid within a few rounds. `covered` holds
 * the paths already reported (and, for a misspelt key, the key it was meant to be).
 */
function checkPastSchemaProblems(
  source: ParsedSource,
  diagnostics: readonly ConfigDiagnostic[],
  options: { env: Env; cwd: string },
): { config: MassGenConfig; covered: Set<string> } | undefined {
  const data = structuredClone(source.data);
  const covered = new Set<string>();
  let problems = diagnostics;
  for (let round = 0; round < 3; round++) {
    let removed = false;
    for (const problem of problems) {
      const segments = rawPath(data, problem.path);
      if (!segments) continue;
      covered.add(formatPath(segments));
      const meant = /did you mean "([^"]+)"/.exec(`${problem.message} ${problem.hint ?? ''}`)?.[1];
      if (meant !== undefined) covered.add(formatPath([...segments.slice(0, -1), meant]));
      removed = removeAt(data, segments) || removed;
    }
    if (!removed) return undefined;
    const checked = checkConfig(data, options);
    if (checked.config) return { config: checked.config, covered };
    problems = checked.diagnostics;
  }
  return undefined;
}

/** True when `command` names a file that exists, directly or on the PATH of `env`. */
function commandExists(command: string, env: Env, cwd: string): boolean {
  if (command.includes('/') || command.includes('\\')) return existsSync(path.resolve(cwd, command));
  const extensions = process.platform === 'win32' ? ['', '.exe', '.cmd', '.bat'] : [''];
  return (env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir !== '')
    .some((dir) => extensions.some((ext) => existsSync(path.join(dir, command + ext))));
}

/**
 * What can be checked about tools without running anything: custom tool modules must exist (an
 * error: the run would stop), MCP commands should be found (a warning: PATH differs between shells).
 */
const asDiagnostic = (error: ConfigError): ConfigDiagnostic => ({
  path: error.path ?? '',
  message: error.message,
  ...(error.hint ? { hint: error.hint } : {}),
});

/** massgen's Python bridge (`python/` beside `src/` and `dist/`), whose table says what each framework imports. */
const PYTHON_DIR = fileURLToPath(new URL('../../python', import.meta.url));

/** Asks `python` (with this environment's PYTHONPATH) whether it finds a framework's module, without importing it. */
const FRAMEWORK_CHECK = [
  'import importlib.util, json, sys',
  'sys.path.insert(0, sys.argv[1])',
  'from massgen_bridge.agents import FRAMEWORKS',
  'need = FRAMEWORKS.get(sys.argv[2])',
  'found = need is None or importlib.util.find_spec(need[0]) is not None',
  'print(json.dumps(None if found else {"module": need[0], "package": need[1]}))',
].join('\n');

/**
 * The module and pip package a Python framework needs when `python` cannot import it (what the run's
 * bridge would stop on, said before the run); null when it can, or when the check itself cannot run.
 */
function missingFramework(
  python: string,
  framework: string,
  env: Env,
  cwd: string,
  checked: Map<string, { module: string; package: string } | null>,
): { module: string; package: string } | null {
  const key = `${python}\u0000${framework}`;
  if (checked.has(key)) return checked.get(key)!;
  const run = spawnSync(python, ['-c', FRAMEWORK_CHECK, PYTHON_DIR, framework], {
    cwd,
    env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    encoding: 'utf8',
    timeout: 60_000,
  });
  let missing: { module: string; package: string } | null = null;
  try {
    if (run.status === 0) missing = JSON.parse(run.stdout.trim()) as typeof missing;
  } catch {
    missing = null;
  }
  checked.set(key, missing);
  return missing;
}

/** The warning for something at `where` that runs in Python, when the interpreter is not found. */
function pythonMissing(
  config: MassGenConfig,
  where: string,
  notFound: (python: string) => string,
): ConfigDiagnostic {
  const python = config.python ?? 'python3';
  return {
    path: where,
    message: `${where}: ${notFound(python)}${python.includes('/') ? '' : ' on PATH'}`,
    hint: 'install Python 3.9 or newer, or set python: to the interpreter',
  };
}

function toolFileProblems(
  config: MassGenConfig,
  dirs: { baseDir: string; projectDir: string },
  env: Env,
): { errors: ConfigDiagnostic[]; warnings: ConfigDiagnostic[] } {
  const { baseDir } = dirs;
  const errors: ConfigDiagnostic[] = [];
  const warnings: ConfigDiagnostic[] = [];
  const frameworksChecked = new Map<string, { module: string; package: string } | null>();
  config.agents.forEach((agent, index) => {
    let route;
    try {
      route = agentRoute(config, index);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      errors.push(asDiagnostic(error));
    }
    if (route?.kind === 'python' && !commandExists(config.python ?? 'python3', env, baseDir)) {
      warnings.push(
        pythonMissing(
          config,
          `agents[${index}].backend`,
          (python) => `the ${route.framework} agent runs in Python, and ${python} was not found`,
        ),
      );
    } else if (route?.kind === 'python' && route.adapter === undefined) {
      const python = config.python ?? 'python3';
      const missing = missingFramework(python, route.framework, env, baseDir, frameworksChecked);
      if (missing) {
        const where = `agents[${index}].backend`;
        warnings.push({
          path: where,
          message: `${where}: the ${route.framework} agent needs the Python package ${missing.package}, which ${python} cannot import (no module named "${missing.module}")`,
          hint: `pip install '${missing.package}' (with the pip of ${python}), or set python: to an interpreter that has it`,
        });
      }
    }
    agent.backend.custom_tools.forEach((tool, toolIndex) => {
      const where = `agents[${index}].backend.custom_tools[${toolIndex}].path`;
      const notes: string[] = [];
      const file = resolveConfigPath(tool.path, where, { ...dirs, notes });
      warnings.push(...notes.map((message) => ({ path: where, message })));
      if (!existsSync(file)) {
        const fromProject = path.resolve(dirs.projectDir, tool.path);
        const also = path.isAbsolute(tool.path) || fromProject === file ? '' : ` (nor ${fromProject})`;
        errors.push({ path: where, message: `${where}: custom tool module not found: ${file}${also}` });
      } else if (
        path.extname(file).toLowerCase() === '.py' &&
        !commandExists(config.python ?? 'python3', env, baseDir)
      ) {
        warnings.push(
          pythonMissing(
            config,
            where,
            (python) => `a Python custom tool needs ${python}, which was not found`,
          ),
        );
      }
    });
    for (const [name, server] of Object.entries(agent.backend.mcp_servers)) {
      if (server.command === undefined) continue;
      const cwd = server.cwd === undefined ? baseDir : path.resolve(baseDir, server.cwd);
      if (!commandExists(server.command, env, cwd)) {
        const where = `agents[${index}].backend.mcp_servers.${name}.command`;
        warnings.push({
          path: where,
          message: `${where}: "${server.command}" was not found${server.command.includes('/') ? '' : ' on PATH'}; MCP server "${name}" will not start here`,
        });
      }
    }
  });
  return { errors, warnings };
}
