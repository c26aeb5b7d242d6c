import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  loadDotEnv,
  validateConfigFile,
  type ConfigDiagnostic,
  type MassGenConfig,
} from '../config/index.js';
import { ConfigError } from '../types/errors.js';
import { findBackendFactory } from '../backends/index.js';
import { modelLabel, resolveAgentSettings, type Env } from './build-agents.js';
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
 * (backend types exist, API keys are available in this environment).
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
  if (!result.config) return report;
  const config: MassGenConfig = result.config;
  report.agents = config.agents.map((a) => ({
    id: a.id,
    backend: a.backend.type,
    model: modelLabel(a.backend),
  }));
  // Check agents one by one so every problem is reported, not just the first.
  config.agents.forEach((agent, index) => {
    try {
      resolveAgentSettings(agent, index, env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const diagnostic: ConfigDiagnostic = {
        path: error.path ?? `agents[${index}]`,
        message: error.message,
        ...(error.hint ? { hint: error.hint } : {}),
      };
      // A missing key is a fact of this environment, not of the file.
      if (error.path?.endsWith('.api_key')) report.warnings.push(diagnostic);
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
  const toolProblems = toolFileProblems(config, { baseDir: path.dirname(report.file), projectDir: cwd }, env);
  report.errors.push(...toolProblems.errors);
  report.warnings.push(...toolProblems.warnings);
  report.valid = report.errors.length === 0;
  return report;
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
