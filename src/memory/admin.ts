import path from 'node:path';
import { loadConfigFile, MemoryConfigSchema, type MemoryConfig } from '../config/index.js';
import type { MemoryStore } from './types.js';
import type { Env } from '../types/env.js';

export type { MemoryHit, MemoryRecord, MemoryStore } from './types.js';

/** Where `massgen memory …` finds the store: a folder, a config's `memory:`, or the scope's default. */
export interface MemoryAdminOptions {
  cwd: string;
  env: Env;
  home: string;
  /** A config file whose `memory:` names the store and the embedding model. */
  config?: string;
  /** The store folder itself (relative to `cwd`). */
  store?: string;
  /** The user-scope store (`~/.massgen/memory`) instead of the project's. */
  user?: boolean;
}

/** Opens the store `massgen memory` manages (LanceDB is imported only now). */
export async function openMemoryAdmin(
  options: MemoryAdminOptions,
): Promise<{ store: MemoryStore; dir: string }> {
  const { memoryStoreDir, openConfiguredStore } = await import('./run-memory.js');
  let config: MemoryConfig = MemoryConfigSchema.parse({ scope: options.user ? 'user' : 'project' });
  let baseDir = options.cwd;
  if (options.config !== undefined) {
    config = loadConfigFile(options.config, { env: options.env, cwd: options.cwd }).memory;
    baseDir = path.dirname(path.resolve(options.cwd, options.config));
  }
  if (options.store !== undefined) config = { ...config, store: options.store };
  const dir = memoryStoreDir(config, options.cwd, options.home);
  const store = await openConfiguredStore(config, {
    env: options.env,
    cwd: options.cwd,
    baseDir,
    home: options.home,
  });
  return { store, dir };
}
