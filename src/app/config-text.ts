import { ConfigValidationError, type MassGenConfig } from '../config/index.js';
import { checkConfig } from '../config/parse-config.js';
import { parseYamlSource } from '../config/yaml-source.js';
import type { Env } from './build-agents.js';

/** `${NAME}` without a default: the variables a config text needs from its environment. */
const REFERENCE = /(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The variables `text` references (`${NAME}`, not `${NAME:-default}`) that `env` leaves unset. */
export function unsetConfigVariables(text: string, env: Env): string[] {
  const names = [...text.matchAll(REFERENCE)].map((m) => m[1] as string);
  return [...new Set(names)].filter((name) => env[name] === undefined);
}

/**
 * A config given as text rather than a file — e.g. one a queue worker received — validated and
 * frozen like `loadConfigFile` does. `source` names it in messages (`.json` makes it JSON); its
 * relative paths resolve against `cwd`. `${VAR}` references resolve from `env`.
 *
 * @throws {ConfigValidationError} listing every problem.
 */
export function parseConfigText(
  text: string,
  options: { source: string; env: Env; cwd: string },
): MassGenConfig {
  const parsed = parseYamlSource(text, options.source.toLowerCase().endsWith('.json') ? 'JSON' : 'YAML');
  if (parsed.diagnostics.length > 0)
    throw new ConfigValidationError(parsed.diagnostics, { source: options.source });
  const { config, diagnostics } = checkConfig(parsed.data, {
    env: options.env,
    source: options.source,
    cwd: options.cwd,
    locate: parsed.locate,
  });
  if (config === undefined) throw new ConfigValidationError(diagnostics, { source: options.source });
  return config;
}
