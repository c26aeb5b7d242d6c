import path from 'node:path';
import {
  loadDotEnv,
  validateConfigFile,
  type ConfigDiagnostic,
  type MassGenConfig,
} from '../config/index.js';
import { ConfigError } from '../types/errors.js';
import { resolveAgentSettings, type Env } from './build-agents.js';

export interface ValidationReport {
  file: string;
  valid: boolean;
  errors: ConfigDiagnostic[];
  /** Problems that do not make the file invalid but will stop a run here (e.g. an unset API key). */
  warnings: ConfigDiagnostic[];
  agents: { id: string; backend: string; model: string }[];
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
    warnings,
    agents: [],
  };
  if (!result.config) return report;
  const config: MassGenConfig = result.config;
  report.agents = config.agents.map((a) => ({ id: a.id, backend: a.backend.type, model: a.backend.model }));
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
  report.valid = report.errors.length === 0;
  return report;
}
