import type { BackendFactory } from '../types/backend.js';
import { BACKEND_TABLE, backendTypes, registryTypeOf } from './backend-table.js';

export { backendTypes } from './backend-table.js';

/** The factories loaded in this process, by registry type. */
const loaded = new Map<string, BackendFactory>();

/**
 * Loads the factories of these config `type`s (preset names load `chatcompletion`; unknown types are
 * skipped: resolving the agent reports them with a suggestion). Awaited before a config's agents are
 * resolved, so a run imports only the backends its agents use.
 */
export async function loadBackendFactories(types: Iterable<string>): Promise<void> {
  const wanted = new Set<string>();
  for (const type of types) {
    const registryType = registryTypeOf(type);
    if (registryType !== undefined && !loaded.has(registryType)) wanted.add(registryType);
  }
  await Promise.all(
    [...wanted].map(async (type) => {
      loaded.set(type, await BACKEND_TABLE[type]!.load());
    }),
  );
}

/** Loads the factories of every agent's backend in `config`. */
export function loadConfigBackends(config: {
  agents: readonly { backend: { type: string } }[];
}): Promise<void> {
  return loadBackendFactories(config.agents.map((agent) => agent.backend.type));
}

/** Every factory, in registry order (help listings, docs tables): loads every backend. */
export async function loadAllBackendFactories(): Promise<readonly BackendFactory[]> {
  await loadBackendFactories(backendTypes());
  return backendTypes().map((type) => loaded.get(type)!);
}

/** The factory for a config `type`, loading it if needed; undefined when no backend has that type. */
export async function backendFactoryFor(type: string): Promise<BackendFactory | undefined> {
  await loadBackendFactories([type]);
  return loaded.get(type);
}

/**
 * The factory for a config `type`, undefined when no backend has that type. Throws when the type is
 * known but its module was not loaded first ({@link loadBackendFactories}): a missed load is a bug that
 * must fail loudly, never read as "no such backend".
 */
export function findBackendFactory(type: string): BackendFactory | undefined {
  const factory = loaded.get(type);
  if (factory !== undefined || !Object.hasOwn(BACKEND_TABLE, type)) return factory;
  throw new Error(`the ${type} backend was used before it was loaded (await loadBackendFactories first)`);
}

/** The registry types whose modules this process has loaded (tests check what a run did not load). */
export function loadedBackendTypes(): string[] {
  return [...loaded.keys()];
}
