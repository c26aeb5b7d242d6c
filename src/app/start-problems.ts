import { ConfigValidationError, type ConfigDiagnostic, type MassGenConfig } from '../config/index.js';
import { ConfigError, describeError } from '../types/errors.js';
import { loadConfigBackends } from '../backends/registry.js';
import { resolveAgentSettings, type Env } from './build-agents.js';
import { parseConfigText, unsetConfigVariables } from './config-text.js';

/**
 * Why a run cannot start, said all at once: every agent's missing API key (not only the first),
 * every `${VAR}` the config uses that is unset, every backend setting the registry refuses. Cheap: no
 * network, no model, nothing read but the config. Front ends show the list (`POST /api/runs` answers
 * 400 with it) instead of starting a run that fails on its first problem.
 */
export interface StartProblem {
  /** The agent concerned, when there is one. */
  agentId?: string;
  /** The environment variable to set (a missing key or an unset `${VAR}`), when that is the fix. */
  key?: string;
  message: string;
  /** What to do about it. */
  hint: string;
  /** The config key, dotted (`agents[1].backend.api_key`), when there is one. */
  path?: string;
}

const DEFAULT_HINT = 'fix the config (massgen --validate FILE lists every problem with its line)';

/** The agent an `agents[i]…` path is about. */
function agentAt(agentIds: readonly string[], path: string | undefined): string | undefined {
  const index = /^agents\[(\d+)\]/.exec(path ?? '')?.[1];
  return index === undefined ? undefined : agentIds[Number(index)];
}

/** The environment variable a diagnostic asks for: a missing key's, or an unset `${VAR}`. */
function keyOf(message: string): string | undefined {
  return (
    /set the (\S+?)(?: or \S+)* environment variable/.exec(message)?.[1] ??
    /environment variable (\S+) is not set/.exec(message)?.[1]
  );
}

/** A config diagnostic (from `validateConfig` or a parse) as a start problem; `agentIds` in config order. */
export function problemOf(diagnostic: ConfigDiagnostic, agentIds: readonly string[] = []): StartProblem {
  const agentId = agentAt(agentIds, diagnostic.path);
  const key = keyOf(diagnostic.message);
  return {
    ...(agentId === undefined ? {} : { agentId }),
    ...(key === undefined ? {} : { key }),
    message: diagnostic.message,
    hint: diagnostic.hint ?? (key ? `export ${key}=… or put it in a .env file in this folder` : DEFAULT_HINT),
    ...(diagnostic.path ? { path: diagnostic.path } : {}),
  };
}

/** Any error a run failed to start with, as start problems (a config error lists its diagnostics). */
export function problemsOfError(error: unknown, agentIds: readonly string[] = []): StartProblem[] {
  if (error instanceof ConfigValidationError && error.diagnostics.length > 0)
    return error.diagnostics.map((d) => problemOf(d, agentIds));
  if (error instanceof ConfigError)
    return [
      problemOf(
        { path: error.path ?? '', message: error.message, ...(error.hint ? { hint: error.hint } : {}) },
        agentIds,
      ),
    ];
  return [
    { message: describeError(error), hint: 'see the server output (massgen --web --debug) for details' },
  ];
}

/** Every problem of every agent's backend settings in `env` (missing keys first found, none skipped). */
export async function startProblems(config: MassGenConfig, env: Env): Promise<StartProblem[]> {
  await loadConfigBackends(config);
  return config.agents.flatMap((agent, index) => {
    const problems: ConfigError[] = [];
    try {
      resolveAgentSettings(agent, index, env, problems);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(error);
    }
    return problems.map((error) =>
      problemOf(
        {
          path: error.path ?? `agents[${index}]`,
          message: error.message,
          ...(error.hint ? { hint: error.hint } : {}),
        },
        config.agents.map((a) => a.id),
      ),
    );
  });
}

/** Whether a config can run here, and the environment variables it still needs. */
export interface ConfigReadiness {
  runnable: boolean;
  /** Environment variables to set: API keys and `${VAR}`s (each once). */
  missing: string[];
  /** Set when the config itself is invalid (its first problem). */
  error?: string;
}

/** {@link ConfigReadiness} of a config's text (parsed in memory: the caller reads the file). */
export async function configReadiness(
  text: string,
  options: { source: string; env: Env; cwd: string },
): Promise<ConfigReadiness> {
  const unset = unsetConfigVariables(text, options.env);
  const env = { ...options.env, ...Object.fromEntries(unset.map((name) => [name, `<unset ${name}>`])) };
  let config: MassGenConfig;
  try {
    config = parseConfigText(text, { ...options, env });
  } catch (error) {
    const first = error instanceof ConfigValidationError ? error.diagnostics[0]?.message : undefined;
    return { runnable: false, missing: unset, error: first ?? describeError(error) };
  }
  // A placeholder is not a key: checked with the real environment.
  const problems = await startProblems(config, {
    ...options.env,
    ...Object.fromEntries(unset.map((n) => [n, undefined])),
  });
  const keys = problems.flatMap((p) => (p.key ? [p.key] : []));
  const missing = [...new Set([...unset, ...keys])];
  return { runnable: problems.length === 0 && unset.length === 0, missing };
}
