import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from '../types/errors.js';
import type { ConfigEnv } from './interpolate-env.js';
import { errorCode } from '../util/guards.js';

/**
 * Reads `<cwd>/.env` when it exists and returns a new environment: the file's variables plus
 * `env`, where variables already set in `env` win (so a shell export overrides the file). `env` is
 * not modified and nothing is written to `process.env`.
 *
 * Values are never included in error messages: they are usually secrets.
 *
 * @throws {ConfigError} when `.env` exists but cannot be read.
 */
export function loadDotEnv(
  cwd: string = process.cwd(),
  env: ConfigEnv = process.env,
): Record<string, string | undefined> {
  const file = join(cwd, '.env');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return { ...env };
    throw new ConfigError(`cannot read ${file}: ${typeof code === 'string' ? code : 'read failed'}`, {
      hint: 'fix the file permissions or remove the file',
    });
  }
  const merged: Record<string, string | undefined> = { ...env };
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (merged[name] === undefined && value !== undefined) merged[name] = value;
  }
  return merged;
}
