import { SECRET_KEY_PATTERN, type MassGenConfig } from '../config/index.js';
import { createSecretScrubber, type SecretScrubber } from '../util/secret-scrubber.js';
import { secretValues } from './backend-settings.js';
import type { Env } from '../types/env.js';

/** Variable names that hold secrets: keys, tokens, secrets, passwords, credentials. */
const SECRET_ENV_NAME = new RegExp(`${SECRET_KEY_PATTERN.source}|passw(or)?d|credential|_key$`, 'i');
const HEADER_MAP = /^(http_)?headers$/i;

/** Every string in the config that sits under a secret-looking key or in a headers map. */
function configSecrets(node: unknown, secret: boolean, out: string[]): void {
  if (typeof node === 'string') {
    if (secret) out.push(node);
    return;
  }
  if (Array.isArray(node)) {
    for (const item of node) configSecrets(item, secret, out);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    configSecrets(value, secret || SECRET_KEY_PATTERN.test(key) || HEADER_MAP.test(key), out);
  }
}

/**
 * Every secret a run knows: the agents' resolved API keys, every environment variable whose name
 * looks like a key, token, secret or password, and every secret-looking value or header in the config.
 * Passwords inside URLs are masked by pattern, so they need not be listed.
 */
export function collectRunSecrets(config: MassGenConfig | null, env: Env): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && SECRET_ENV_NAME.test(name)) out.push(value);
  }
  if (config) {
    out.push(...secretValues(config, env));
    // Media tools may read their key from a variable named in the config (`api_key_env`), whatever its name.
    for (const agent of config.agents) {
      for (const entry of Object.values(agent.backend.media_generation ?? {})) {
        const value = entry?.api_key_env === undefined ? undefined : env[entry.api_key_env];
        if (value) out.push(value);
      }
    }
    configSecrets(config, false, out);
  }
  return out;
}

/** The run's one scrubber (see {@link collectRunSecrets}). */
export function runScrubber(config: MassGenConfig | null, env: Env): SecretScrubber {
  return createSecretScrubber(collectRunSecrets(config, env));
}
