import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { PROJECT_CONFIG_FILE } from '../config/config-discovery.js';
import {
  PROJECT_ENV_FILE,
  PROJECT_HOOKS_DIR,
  digestOf,
  findTrust,
  projectKey,
  saveTrust,
  trustMatches,
  type TrustRecord,
  type TrustStoreOptions,
} from '../config/project-trust.js';
import { parseYamlSource } from '../config/yaml-source.js';
import { isRecord } from '../util/guards.js';
import { inertText } from '../util/terminal-text.js';
import { summarizeConfigFile, type ConfigSummary } from './project-summary.js';

// What `massgen trust --list/--revoke` (src/cli) needs, through the composition root.
export { readTrustStore, revokeTrust, trustStoreFile } from '../config/project-trust.js';

/** A massgen config found in a project folder, and what it would do. */
export interface ProjectConfig extends ConfigSummary {
  /** Relative to the project folder, e.g. `.massgen/config.yaml`. */
  rel: string;
}

/**
 * What a project folder holds that massgen would use without being told to — and that therefore runs
 * only once the user has trusted the folder (docs/security.md, "Project folders"):
 * `.massgen/config.yaml` (the team a bare `massgen` runs), the other configs `massgen --web` and
 * `massgen serve` offer (`*.yaml` in the folder and in `.massgen/`), `.env`, and `.massgen/hooks/`.
 */
export interface ProjectInspection {
  /** The folder, absolute, symlinks resolved. */
  dir: string;
  /** `.massgen/config.yaml`, when there is one. */
  config: ProjectConfig | null;
  /** Every massgen config in the folder and in `.massgen/` (`config` among them). */
  configs: ProjectConfig[];
  /** The names `.env` sets (never its values), when there is one. */
  envNames: string[] | null;
  /** The files of `.massgen/hooks/`, when the folder exists. */
  hooks: string[] | null;
  /** The user's trust of this folder, if any (however stale). */
  record: TrustRecord | undefined;
}

const YAML = /\.ya?ml$/i;
/** Larger YAML files are data, not teams: not even opened. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** A config's own file and the module files it names: trusting the config trusts all of them. */
function configEntries(dir: string, config: ProjectConfig): string[] {
  return [config.rel, ...config.codeFiles.map((file) => path.relative(dir, file))];
}

/** The YAML files in `folder` that hold a team (`agents:` or `agent:`), sorted. */
function teamFiles(dir: string, folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(path.join(dir, folder))
      .filter((name) => YAML.test(name))
      .sort();
  } catch {
    return [];
  }
  return names
    .map((name) => path.join(folder, name))
    .filter((rel) => {
      try {
        const file = path.join(dir, rel);
        if (statSync(file).size > MAX_CONFIG_BYTES) return false;
        const data = parseYamlSource(readFileSync(file, 'utf8')).data;
        return isRecord(data) && ('agents' in data || 'agent' in data);
      } catch {
        return false;
      }
    });
}

function filesUnder(folder: string): string[] | null {
  try {
    return readdirSync(folder, { recursive: true, encoding: 'utf8' }).sort();
  } catch {
    return null;
  }
}

/**
 * Looks at `dir` (nothing is run or loaded). With `runOnly`, `configs` holds just the discovered
 * config: enough to tell whether a run may use the folder, without opening every YAML file in it.
 * @throws {ConfigError} when the trust list is unreadable.
 */
export function inspectProject(
  dir: string,
  options: TrustStoreOptions & { runOnly?: boolean } = {},
): ProjectInspection {
  const key = projectKey(dir);
  const summarize = (rel: string): ProjectConfig => ({
    rel,
    ...summarizeConfigFile(path.join(key, rel), key),
  });
  const configs = options.runOnly
    ? []
    : [...teamFiles(key, '.'), ...teamFiles(key, '.massgen')].map((rel) => summarize(path.normalize(rel)));
  // The discovered config counts even when it holds no team: the run will say what is wrong with it.
  const config =
    configs.find((c) => c.rel === PROJECT_CONFIG_FILE) ??
    (digestOf(path.join(key, PROJECT_CONFIG_FILE)) === null ? null : summarize(PROJECT_CONFIG_FILE));
  if (config && !configs.includes(config)) configs.push(config);
  let envNames: string[] | null = null;
  try {
    envNames = Object.keys(parseEnv(readFileSync(path.join(key, PROJECT_ENV_FILE), 'utf8')));
  } catch {
    envNames = digestOf(path.join(key, PROJECT_ENV_FILE)) === null ? null : [];
  }
  return {
    dir: key,
    config,
    configs,
    envNames,
    hooks: filesUnder(path.join(key, PROJECT_HOOKS_DIR)),
    record: findTrust(key, options),
  };
}

/**
 * What a run in the folder would use by itself — the discovered config and the modules it names,
 * `.env`, the hooks — relative to the folder. The folder is trusted when all of these are as they were
 * when the user trusted it.
 */
export function runEntries(project: ProjectInspection): string[] {
  return [
    ...(project.config ? configEntries(project.dir, project.config) : []),
    PROJECT_ENV_FILE,
    PROJECT_HOOKS_DIR,
  ];
}

/** Whether the user has trusted the folder and nothing a run would use has changed since. */
export function isProjectTrusted(project: ProjectInspection): boolean {
  return trustMatches(project.record, runEntries(project));
}

/** Trusts the folder as it is now: everything {@link inspectProject} found, configs of the web UI included. */
export function trustProject(project: ProjectInspection, options: TrustStoreOptions = {}): TrustRecord {
  const entries = [...runEntries(project), ...project.configs.flatMap((c) => configEntries(project.dir, c))];
  return saveTrust(project.dir, entries, options);
}

/**
 * For `massgen --web` and `massgen serve`, which offer the folder's configs: whether the config
 * `file` may be offered — it is in a trusted folder and it, and the modules it names, are unchanged.
 */
export function trustedConfigFilter(project: ProjectInspection): (file: string) => boolean {
  if (!isProjectTrusted(project)) return () => false;
  return (file) => {
    // The folder's real path, the file's own name: a config may be a link to elsewhere.
    const rel = path.relative(project.dir, path.join(projectKey(path.dirname(file)), path.basename(file)));
    const config = project.configs.find((c) => c.rel === rel);
    return config !== undefined && trustMatches(project.record, configEntries(project.dir, config));
  };
}

const section = (title: string, lines: readonly string[]) =>
  lines.length === 0 ? '' : `    ${title}:\n${lines.map((line) => `      ${line}\n`).join('')}`;

/**
 * The summary shown before the user trusts a folder: for each config, what it would start, load and
 * send where; the names `.env` sets; the hooks. Everything taken from the files is shown inert.
 */
export function formatProjectSummary(project: ProjectInspection): string {
  let out = `Project folder ${inertText(project.dir)}\n`;
  for (const config of project.configs) {
    out += `  ${inertText(config.rel)}${config.rel === PROJECT_CONFIG_FILE ? ' (used by massgen without --config)' : ''}\n`;
    if (config.problem) out += `    ${config.problem}\n`;
    out += section('starts programs', config.starts);
    out += section('loads code into massgen', config.loads);
    out += section('sends requests (← the variables whose values go with them)', config.sends);
  }
  if (project.envNames)
    out += `  ${PROJECT_ENV_FILE}: sets ${project.envNames.length > 0 ? project.envNames.map(inertText).join(', ') : 'nothing'} (values not shown)\n`;
  if (project.hooks)
    out += `  ${PROJECT_HOOKS_DIR}: ${project.hooks.length} file(s)${project.hooks.length > 0 ? `: ${project.hooks.slice(0, 10).map(inertText).join(', ')}` : ''}\n`;
  if (project.configs.length === 0 && !project.envNames && !project.hooks)
    out += '  nothing massgen would use by itself\n';
  return out;
}
