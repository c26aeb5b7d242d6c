import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
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
import { commandExists } from '../util/find-executable.js';
import { loadConfigBackends } from '../backends/registry.js';
import { modelLabel, resolveAgentSettings, type Env } from './backend-settings.js';
import { resolveContextPaths, workspaceProblems } from './build-workspaces.js';
import { capabilityProblems } from './capability-checks.js';
import { resolveConfigPath } from '../config/config-relative.js';
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
export async function validateConfig(
  file: string,
  options: { cwd?: string; env?: Env } = {},
): Promise<ValidationReport> {
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
  await loadConfigBackends(config);
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
  const place = { baseDir: path.dirname(report.file), projectDir: cwd, env };
  const toolProblems = toolFileProblems(config, place);
  report.errors.push(...toolProblems.errors);
  report.warnings.push(...toolProblems.warnings);
  // Memory, skills, media generation, Python tools, external agents: each checks what it would use.
  const fromCapabilities = capabilityProblems(config, place);
  report.errors.push(...fromCapabilities.errors);
  report.warnings.push(...fromCapabilities.warnings);
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

const asDiagnostic = (error: ConfigError): ConfigDiagnostic => ({
  path: error.path ?? '',
  message: error.message,
  ...(error.hint ? { hint: error.hint } : {}),
});

/**
 * What can be checked about tools without running anything: custom tool modules must exist (an
 * error: the run would stop), MCP commands should be found (a warning: PATH differs between shells).
 */
function toolFileProblems(
  config: MassGenConfig,
  place: { baseDir: string; projectDir: string; env: Env },
): { errors: ConfigDiagnostic[]; warnings: ConfigDiagnostic[] } {
  const { baseDir, projectDir, env } = place;
  const errors: ConfigDiagnostic[] = [];
  const warnings: ConfigDiagnostic[] = [];
  config.agents.forEach((agent, index) => {
    agent.backend.custom_tools.forEach((tool, toolIndex) => {
      const where = `agents[${index}].backend.custom_tools[${toolIndex}].path`;
      const notes: string[] = [];
      const file = resolveConfigPath(tool.path, where, { baseDir, projectDir, notes });
      warnings.push(...notes.map((message) => ({ path: where, message })));
      if (!existsSync(file)) {
        const fromProject = path.resolve(projectDir, tool.path);
        const also = path.isAbsolute(tool.path) || fromProject === file ? '' : ` (nor ${fromProject})`;
        errors.push({ path: where, message: `${where}: custom tool module not found: ${file}${also}` });
      }
    });
    for (const [name, server] of Object.entries(agent.backend.mcp_servers)) {
      if (server.command === undefined) continue;
      const cwd = server.cwd === undefined ? baseDir : path.resolve(baseDir, server.cwd);
      if (!commandExists(server.command, env.PATH, cwd)) {
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
