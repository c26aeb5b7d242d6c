import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { ConfigFileMemo } from './config-file-memo.js';
import { ConfigValidationError, type ConfigDiagnostic } from './diagnostics.js';
import type { ConfigEnv } from './interpolate-env.js';
import { checkConfig } from './parse-config.js';
import type { MassGenConfig } from './schema.js';
import { parseYamlSource } from './yaml-source.js';
import { errorCode } from '../util/guards.js';

export interface LoadConfigOptions {
  /** Values for `${VAR}` references; defaults to `process.env`. Merge `.env` first with `loadDotEnv`. */
  env?: ConfigEnv;
  /** Relative paths resolve against this; defaults to `process.cwd()`. */
  cwd?: string;
}

export interface ConfigValidationResult {
  valid: boolean;
  diagnostics: ConfigDiagnostic[];
  /** MassGen keys accepted but handled differently or not at all (see docs/massgen-compat.md). */
  warnings: ConfigDiagnostic[];
  /** Present exactly when `valid`. */
  config?: MassGenConfig;
}

function readProblem(error: unknown, absolute: string): string {
  const code = errorCode(error);
  if (code === 'ENOENT') return `config file not found: ${absolute}`;
  if (code === 'EISDIR') return `config path is a directory, not a file: ${absolute}`;
  if (code === 'EACCES' || code === 'EPERM')
    return `cannot read config file (permission denied): ${absolute}`;
  return `cannot read config file ${absolute}: ${typeof code === 'string' ? code : String(error)}`;
}

type CheckResult = ConfigValidationResult & { source?: string };

/** The file's text, or the result saying why it could not be read. */
function readConfigText(absolute: string): string | CheckResult {
  try {
    return readFileSync(absolute, 'utf8');
  } catch (error) {
    return { valid: false, diagnostics: [{ path: '', message: readProblem(error, absolute) }], warnings: [] };
  }
}

const formatOf = (absolute: string) => (extname(absolute).toLowerCase() === '.json' ? 'JSON' : 'YAML');

/** `source` is the prefix for messages; unset when the file could not be read (the message names it). */
function checkText(text: string, absolute: string, path: string, env: ConfigEnv, cwd: string): CheckResult {
  const source = path;
  const parsed = parseYamlSource(text, formatOf(absolute));
  if (parsed.diagnostics.length > 0)
    return { valid: false, diagnostics: parsed.diagnostics, warnings: [], source };
  const { config, diagnostics, warnings } = checkConfig(parsed.data, {
    env,
    source,
    cwd,
    locate: parsed.locate,
  });
  return config === undefined
    ? { valid: false, diagnostics, warnings, source }
    : { valid: true, diagnostics, warnings, config };
}

function checkFile(path: string, env: ConfigEnv, cwd: string): CheckResult {
  const absolute = resolve(cwd, path);
  const text = readConfigText(absolute);
  return typeof text === 'string' ? checkText(text, absolute, path, env, cwd) : text;
}

const memo = new ConfigFileMemo();

/**
 * Reads a YAML or JSON config file (relative to `cwd`) into a validated, frozen {@link MassGenConfig}.
 * Schema problems carry the line and column of the offending node.
 *
 * @throws {ConfigValidationError} for a missing, unreadable, malformed or invalid file; its
 *   `diagnostics` list every problem.
 */
export function loadConfigFile(path: string, options: LoadConfigOptions = {}): MassGenConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const absolute = resolve(cwd, path);
  const text = readConfigText(absolute);
  if (typeof text !== 'string') throw new ConfigValidationError(text.diagnostics, {});
  const recipe = ConfigFileMemo.recipe(text, formatOf(absolute), cwd, env);
  const known = memo.get(absolute, recipe);
  if (known) return known;
  const result = checkText(text, absolute, path, env, cwd);
  if (result.config === undefined)
    throw new ConfigValidationError(result.diagnostics, { source: result.source });
  memo.set(absolute, recipe, result.config);
  return result.config;
}

/**
 * Like {@link loadConfigFile} but reports instead of throwing, for `massgen --validate FILE [--json]`.
 * Diagnostics come in file order; format them with `formatDiagnostics(diagnostics, path)`.
 */
export function validateConfigFile(path: string, options: LoadConfigOptions = {}): ConfigValidationResult {
  const { valid, diagnostics, warnings, config } = checkFile(
    path,
    options.env ?? process.env,
    options.cwd ?? process.cwd(),
  );
  return config === undefined ? { valid, diagnostics, warnings } : { valid, diagnostics, warnings, config };
}
