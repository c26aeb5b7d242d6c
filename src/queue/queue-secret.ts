import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Env } from '../app/essentials.js';
import { ConfigError } from '../types/errors.js';
import { errorCode } from '../util/guards.js';
import { createJobSigner, MIN_QUEUE_SECRET_LENGTH, type JobSigner } from './job-signature.js';

/** The environment variable holding the queue's secret. */
export const QUEUE_SECRET_VAR = 'MASSGEN_QUEUE_SECRET';

const HOW = `make one with \`openssl rand -hex 32\` and give the same secret to the batch or server and to every worker`;

/**
 * The queue secret that signs (batch, serve) and checks (worker) jobs: the file of
 * `--queue-secret-file` (surrounding whitespace ignored), else `MASSGEN_QUEUE_SECRET`; null when
 * neither is given.
 *
 * @throws {ConfigError} naming the file or the variable when it cannot be read or is too short.
 */
export function loadQueueSecret(options: { file?: string; env: Env; cwd: string }): JobSigner | null {
  if (options.file !== undefined) {
    const file = path.resolve(options.cwd, options.file);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new ConfigError(`--queue-secret-file ${file}: cannot read it (${errorCode(error) ?? 'error'})`, {
        hint: HOW,
      });
    }
    return checked(text.trim(), `--queue-secret-file ${file}`, file);
  }
  const value = options.env[QUEUE_SECRET_VAR];
  if (value === undefined || value === '') return null;
  return checked(value.trim(), QUEUE_SECRET_VAR, QUEUE_SECRET_VAR);
}

function checked(secret: string, what: string, source: string): JobSigner {
  if (secret.length < MIN_QUEUE_SECRET_LENGTH)
    throw new ConfigError(
      `${what}: the queue secret must be at least ${MIN_QUEUE_SECRET_LENGTH} characters (it has ${secret.length})`,
      { hint: HOW },
    );
  return createJobSigner(secret, source);
}
