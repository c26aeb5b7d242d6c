import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../types/errors.js';
import type { ConfigEnv } from './interpolate-env.js';
import { loadDotEnv } from './load-dot-env.js';
import { errorCode } from '../util/guards.js';

/** Where to look: the working folder, the environment (`XDG_CONFIG_HOME`) and the home folder. */
export interface DiscoveryOptions {
  cwd: string;
  /** Defaults to `process.env`. */
  env?: ConfigEnv;
  /** Defaults to `os.homedir()`. */
  home?: string;
}

/** A config file found without `--config`. */
export interface DiscoveredConfig {
  /** Absolute path of the file. */
  path: string;
  /** `project`: `./.massgen/config.yaml`; `user`: the user-level `config.yaml`. */
  scope: 'project' | 'user';
}

/** The project-level config, relative to the working folder. */
export const PROJECT_CONFIG_FILE = path.join('.massgen', 'config.yaml');

/**
 * The user-level config folder: `$XDG_CONFIG_HOME/massgen` when `XDG_CONFIG_HOME` is set to an
 * absolute path (the XDG spec says to ignore a relative one), else `~/.config/massgen`.
 */
export function userConfigDir(env: ConfigEnv = process.env, home: string = os.homedir()): string {
  const xdg = env['XDG_CONFIG_HOME'];
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config');
  return path.join(base, 'massgen');
}

/** `<userConfigDir>/config.yaml`, where `massgen --setup` writes the team. */
export function userConfigFile(env: ConfigEnv = process.env, home: string = os.homedir()): string {
  return path.join(userConfigDir(env, home), 'config.yaml');
}

/** `<userConfigDir>/.env`, where `massgen --setup` stores API keys (mode 600). */
export function userEnvFile(env: ConfigEnv = process.env, home: string = os.homedir()): string {
  return path.join(userConfigDir(env, home), '.env');
}

/**
 * The config to use when no `--config` (nor `--model`/`--local-model`) is given, first found wins:
 *
 * 1. `./.massgen/config.yaml` in the working folder (a project's team);
 * 2. `$XDG_CONFIG_HOME/massgen/config.yaml`, else `~/.config/massgen/config.yaml` (written by
 *    `massgen --setup`);
 * 3. none: `null` — the CLI then falls back to the zero-key local default (or the setup wizard).
 *
 * A path that exists is returned even when it is unreadable or not a file, so that loading it reports
 * the problem instead of silently running another team.
 */
export function discoverConfig(options: DiscoveryOptions): DiscoveredConfig | null {
  const env = options.env ?? process.env;
  const home = options.home ?? os.homedir();
  const project = path.resolve(options.cwd, PROJECT_CONFIG_FILE);
  if (existsSync(project)) return { path: project, scope: 'project' };
  const user = userConfigFile(env, home);
  if (existsSync(user)) return { path: user, scope: 'user' };
  return null;
}

/**
 * The environment a run sees: the real environment, then `./.env` when `projectEnv` allows it (the
 * working folder is trusted: see `project-trust.ts`), then the user-level `.env`
 * (`~/.config/massgen/.env`, where `massgen --setup` stores keys). Earlier sources win, so a shell
 * export beats both files and a project's `.env` beats the user's. Nothing is written to `process.env`.
 *
 * @throws {ConfigError} when one of the `.env` files exists but cannot be read.
 */
export function loadUserEnv(
  options: DiscoveryOptions & { projectEnv?: boolean },
): Record<string, string | undefined> {
  const env = options.env ?? process.env;
  const [project, user] = envFolders(options);
  const base = options.projectEnv === true ? loadDotEnv(project, env) : { ...env };
  return loadDotEnv(user, base);
}

/** Where a run's `.env` files are: the working folder, then the user-level config folder. */
function envFolders(options: DiscoveryOptions): [string, string] {
  return [options.cwd, userConfigDir(options.env ?? process.env, options.home ?? os.homedir())];
}

/**
 * The `.env` files of the working folder and the user-level config folder, those that exist, as
 * absolute paths: the sandboxes show them empty and no tool may read them — the project's too when it
 * was not loaded (an untrusted folder's `.env` may still hold the user's secrets).
 */
export function dotEnvFiles(options: DiscoveryOptions): string[] {
  return envFolders(options)
    .map((folder) => path.resolve(folder, '.env'))
    .filter((file) => existsSync(file));
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ENV_LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/;
const PLAIN_VALUE = /^[A-Za-z0-9_\-./+=:@~,%]*$/;

/** A value as a `.env` line writes it: bare when safe, else single-quoted (taken literally). */
function envValue(name: string, value: string): string {
  if (PLAIN_VALUE.test(value)) return value;
  if (!value.includes("'") && !/[\r\n]/.test(value)) return `'${value}'`;
  // Never include the value: it is usually a secret.
  throw new ConfigError(`the value for ${name} cannot be stored in a .env file (quotes or line breaks)`);
}

/**
 * `existing` `.env` text with `entries` set: a variable's first line (`NAME=…` or `export NAME=…`) is
 * replaced in place, its later duplicates removed, and new variables appended. Comments and other
 * lines are kept as they are. Pure: no file access.
 *
 * @throws {ConfigError} for an invalid variable name or a value a `.env` file cannot hold.
 */
export function mergeEnvText(existing: string, entries: Readonly<Record<string, string>>): string {
  for (const name of Object.keys(entries)) {
    if (!ENV_NAME.test(name)) throw new ConfigError(`invalid environment variable name "${name}"`);
  }
  const written = new Set<string>();
  const lines: string[] = [];
  const source = existing.replace(/\r?\n$/, '');
  for (const line of source === '' ? [] : source.split(/\r?\n/)) {
    const name = ENV_LINE.exec(line)?.[1];
    const value = name === undefined ? undefined : entries[name];
    if (name === undefined || value === undefined) {
      lines.push(line);
    } else if (!written.has(name)) {
      lines.push(`${name}=${envValue(name, value)}`);
      written.add(name);
    }
  }
  for (const [name, value] of Object.entries(entries)) {
    if (!written.has(name)) lines.push(`${name}=${envValue(name, value)}`);
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** A file written next to its destination and not yet renamed over it. */
export interface StagedFile {
  /** The temporary file: check it (e.g. validate a config) before committing. */
  readonly tmpPath: string;
  /** Renames the temporary file over the destination (atomic on one file system). */
  commit(): void;
  /** Removes the temporary file; the destination is untouched. */
  discard(): void;
}

/**
 * Writes `text` to `<file>.tmp-<pid>` (creating missing folders with mode 700) so it can be checked,
 * then committed atomically — a reader never sees a half-written file, and a rejected file never
 * replaces the old one. `mode` applies to the new file (e.g. `0o600` for secrets).
 */
export function stageFile(file: string, text: string, options: { mode?: number } = {}): StagedFile {
  const mode = options.mode ?? 0o644;
  const tmpPath = `${file}.tmp-${process.pid}`;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(tmpPath, text, { encoding: 'utf8', mode });
    chmodSync(tmpPath, mode); // in case the temporary name already existed with another mode
  } catch (error) {
    rmSync(tmpPath, { force: true });
    throw writeProblem(file, error);
  }
  let done = false;
  return {
    tmpPath,
    commit() {
      if (done) return;
      done = true;
      try {
        renameSync(tmpPath, file);
      } catch (error) {
        rmSync(tmpPath, { force: true });
        throw writeProblem(file, error);
      }
    },
    discard() {
      if (done) return;
      done = true;
      rmSync(tmpPath, { force: true });
    },
  };
}

function writeProblem(file: string, error: unknown): ConfigError {
  const code = errorCode(error);
  return new ConfigError(`cannot write ${file}: ${typeof code === 'string' ? code : String(error)}`, {
    cause: error,
  });
}

/**
 * Sets `entries` in the `.env` file at `file` — merged with its existing lines (see
 * {@link mergeEnvText}), written atomically with mode 600 (only the owner can read it). Values never
 * appear in error messages.
 *
 * @returns the names that were added or replaced.
 */
export function writeEnvFile(file: string, entries: Readonly<Record<string, string>>): string[] {
  let existing = '';
  try {
    existing = readFileSync(file, 'utf8');
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'ENOENT') {
      throw new ConfigError(`cannot read ${file}: ${typeof code === 'string' ? code : 'read failed'}`);
    }
  }
  stageFile(file, mergeEnvText(existing, entries), { mode: 0o600 }).commit();
  return Object.keys(entries);
}
