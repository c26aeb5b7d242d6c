import { readFileSync } from 'node:fs';
import path from 'node:path';
import { collectRunSecrets, parseConfigText, unsetConfigVariables, type Env } from '../app/essentials.js';
import { configProblem } from '../batch/index.js';
import { ConfigError } from '../types/errors.js';
import { errorCode } from '../util/guards.js';
import { MIN_SECRET_LENGTH } from '../util/secret-scrubber.js';

/** A config as a job carries it: the file's own text, `${VAR}` references unresolved. */
export interface ConfigPayload {
  name: string;
  text: string;
  /** Every secret this machine knows that the job must not carry (never sent anywhere). */
  secrets: readonly string[];
}

/**
 * Reads a config for the queue: checked as `massgen --validate` would (API keys and `${VAR}`s may
 * be missing here — workers bring their own), and with the secrets a job must never carry listed:
 * every key-like variable of this environment and every value the config resolves under a secret-like
 * key, so a key written literally into the file is caught before it reaches Redis.
 *
 * @throws {ConfigError} naming the file.
 */
export async function readConfigPayload(file: string, env: Env, cwd: string): Promise<ConfigPayload> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config file ${file}: ${errorCode(error) ?? String(error)}`);
  }
  const problem = await configProblem(file, cwd, env, false);
  if (problem) throw problem;
  const placeholders = Object.fromEntries(unsetConfigVariables(text, env).map((n) => [n, `<unset ${n}>`]));
  const config = parseConfigText(text, {
    source: file,
    env: { ...env, ...placeholders },
    cwd: path.dirname(file),
  });
  const secrets = collectRunSecrets(config, env).filter(
    (secret) => secret.length >= MIN_SECRET_LENGTH && !secret.startsWith('<unset '),
  );
  const payload = { name: path.basename(file), text, secrets };
  assertNoSecrets(text, secrets, `the config ${file}`);
  return payload;
}

/**
 * Refuses to queue anything holding a secret this machine knows (a resolved key, a token, a password).
 *
 * @throws {ConfigError} saying what held it, never the secret itself.
 */
export function assertNoSecrets(value: unknown, secrets: readonly string[], what: string): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    if (text.includes(secret) || text.includes(JSON.stringify(secret).slice(1, -1))) {
      throw new ConfigError(
        `${what} holds a secret (an API key, token, password or header value): it is not put on the queue`,
        {
          hint: 'write it as ${VAR} in the config and set VAR in each worker’s environment: workers read their own keys',
        },
      );
    }
  }
}
