import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../types/errors.js';
import { errorCode } from '../util/guards.js';
import { stageFile, userConfigDir } from './config-discovery.js';
import type { ConfigEnv } from './interpolate-env.js';

/** A project's `.env`, relative to its folder. */
export const PROJECT_ENV_FILE = '.env';

/**
 * A project's hooks folder (`*.json` in Claude Code's settings format, docs/hooks.md), relative to its
 * folder. It is part of what trusting a project records: its hooks run only from a trusted folder, and
 * a changed hook asks again.
 */
export const PROJECT_HOOKS_DIR = path.join('.massgen', 'hooks');

const TrustRecordSchema = z.object({
  /** The project folder, absolute, symlinks resolved. */
  dir: z.string().min(1),
  /** sha256 (hex) of each trusted file or folder, by its path relative to `dir`. */
  files: z.record(z.string(), z.string()),
  trusted_at: z.string(),
});
const TrustStoreSchema = z.object({ version: z.literal(1), projects: z.array(TrustRecordSchema) });

/** One trusted project folder and the digests of what was trusted in it. */
export type TrustRecord = z.output<typeof TrustRecordSchema>;

/** Where the user's trust list is: `XDG_CONFIG_HOME` and the home folder, as for the user config. */
export interface TrustStoreOptions {
  /** Defaults to `process.env`. */
  env?: ConfigEnv;
  /** Defaults to `os.homedir()`. */
  home?: string;
}

/** `<userConfigDir>/trusted.json`: the folders the user has trusted. */
export function trustStoreFile(options: TrustStoreOptions = {}): string {
  return path.join(userConfigDir(options.env ?? process.env, options.home ?? os.homedir()), 'trusted.json');
}

/** A folder as trust records name it: absolute, symlinks resolved (so two spellings are one folder). */
export function projectKey(dir: string): string {
  const absolute = path.resolve(dir);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/**
 * sha256 (hex) of what is at `file`: a file's bytes; for a folder, every entry under it (relative
 * name, kind, and the file's digest or the link's target — links are never followed); null when
 * nothing is there.
 */
export function digestOf(file: string): string | null {
  let stat;
  try {
    stat = lstatSync(file);
  } catch {
    return null;
  }
  const hash = createHash('sha256');
  if (stat.isDirectory()) {
    const walk = (dir: string, rel: string) => {
      for (const name of readdirSync(dir).sort()) {
        const full = path.join(dir, name);
        const relName = rel === '' ? name : `${rel}/${name}`;
        const entry = lstatSync(full);
        if (entry.isDirectory()) {
          hash.update(`dir ${relName}\n`);
          walk(full, relName);
        } else if (entry.isSymbolicLink()) hash.update(`link ${relName} ${readlinkSync(full)}\n`);
        else hash.update(`file ${relName} ${digestOf(full) ?? ''}\n`);
      }
    };
    walk(file, '');
  } else {
    // A file, or a link to one: what a run would read.
    try {
      hash.update(readFileSync(file));
    } catch {
      return null;
    }
  }
  return hash.digest('hex');
}

function storeProblem(file: string, detail: string): ConfigError {
  return new ConfigError(`cannot read the trusted folders list ${file}: ${detail}`, {
    hint: `fix or remove ${file} (then trust your folders again with massgen trust DIR)`,
  });
}

/** Every trusted folder. A missing list is an empty one. @throws {ConfigError} for an unreadable or malformed list. */
export function readTrustStore(options: TrustStoreOptions = {}): TrustRecord[] {
  const file = trustStoreFile(options);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return [];
    throw storeProblem(file, code ?? 'read failed');
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw storeProblem(file, 'not JSON');
  }
  const parsed = TrustStoreSchema.safeParse(data);
  if (!parsed.success) throw storeProblem(file, 'not a list massgen wrote');
  return parsed.data.projects;
}

function writeTrustStore(projects: readonly TrustRecord[], options: TrustStoreOptions): void {
  const text = `${JSON.stringify({ version: 1, projects }, null, 2)}\n`;
  // Atomic, and readable only by the user: it decides what runs on their machine.
  stageFile(trustStoreFile(options), text, { mode: 0o600 }).commit();
}

/** The record of `dir`, if the user has trusted it (whatever has changed since). */
export function findTrust(dir: string, options: TrustStoreOptions = {}): TrustRecord | undefined {
  const key = projectKey(dir);
  return readTrustStore(options).find((record) => record.dir === key);
}

/**
 * Whether `record` covers `entries` (paths relative to its folder) as they are now: each one that
 * exists has the digest recorded when the folder was trusted. One that does not exist is not used,
 * so it needs no trust. False without a record.
 */
export function trustMatches(record: TrustRecord | undefined, entries: readonly string[]): boolean {
  if (!record) return false;
  return entries.every((rel) => {
    const now = digestOf(path.resolve(record.dir, rel));
    return now === null || record.files[rel] === now;
  });
}

/** Trusts `dir` with `entries` (relative paths) as they are now; replaces an earlier record. */
export function saveTrust(
  dir: string,
  entries: readonly string[],
  options: TrustStoreOptions & { now?: Date } = {},
): TrustRecord {
  const key = projectKey(dir);
  const files: Record<string, string> = {};
  for (const rel of [...new Set(entries)].sort()) {
    const digest = digestOf(path.resolve(key, rel));
    if (digest !== null) files[rel] = digest;
  }
  const record: TrustRecord = { dir: key, files, trusted_at: (options.now ?? new Date()).toISOString() };
  writeTrustStore([...readTrustStore(options).filter((r) => r.dir !== key), record], options);
  return record;
}

/** Forgets `dir`. Returns whether it was trusted. */
export function revokeTrust(dir: string, options: TrustStoreOptions = {}): boolean {
  const key = projectKey(dir);
  const projects = readTrustStore(options);
  const kept = projects.filter((record) => record.dir !== key);
  if (kept.length === projects.length) return false;
  writeTrustStore(kept, options);
  return true;
}
