import { stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import type { SessionDocument } from './session-documents.js';
import type { Session } from './session-types.js';
import { errorCode } from '../util/guards.js';

// Small shared pieces of the session store's reader and writers (session-store.ts, session-read.ts,
// session-turn-store.ts).

export const TMP_PREFIX = '.tmp-';

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export const tmpName = (what: string): string =>
  `${TMP_PREFIX}${what}-${process.pid}-${randomBytes(4).toString('hex')}`;

/** A rename that failed because the target folder is already there. */
export const targetTaken = (error: unknown): boolean => {
  const code = errorCode(error);
  return code === 'EEXIST' || code === 'ENOTEMPTY' || code === 'EPERM' || code === 'EISDIR';
};

export async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

export function sessionDocument(session: Omit<Session, 'history' | 'dir'>): SessionDocument {
  return {
    id: session.id,
    created_at: session.createdAt,
    updated_at: session.updatedAt,
    config_source: session.configSource,
    agents: session.agents.map((a) => ({ id: a.id, backend: a.backend, model: a.model })),
    turn_count: session.turns.length,
  };
}

export const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

export const laterIso = (a: string, b: string): string => (Date.parse(b) > Date.parse(a) ? b : a);
