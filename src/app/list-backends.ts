import { BACKEND_TABLE } from '../backends/backend-table.js';
import { loadAllBackendFactories } from '../backends/registry.js';
import type { BackendCapabilities } from '../types/backend.js';
import type { Env } from './build-agents.js';

export interface BackendListing {
  type: string;
  description: string;
  /** Variables that may hold the key (empty: none needed). */
  keyEnvs: readonly string[];
  /** Whether one of them is set — never the value. */
  keySet: boolean;
  defaultBaseUrl: string | undefined;
  capabilities: BackendCapabilities;
  presets: { name: string; baseUrl: string; keyEnv: string | null; keySet: boolean }[];
}

const isSet = (env: Env, name: string | null) => name !== null && (env[name] ?? '') !== '';

/** What `massgen --list-backends` shows: every backend type, its key variable and whether it is set. */
export async function listBackends(env: Env): Promise<BackendListing[]> {
  return (await loadAllBackendFactories()).map((factory) => {
    const keyEnvs = factory.apiKeyEnvs({});
    return {
      type: factory.type,
      description: factory.description,
      keyEnvs,
      keySet: keyEnvs.some((name) => isSet(env, name)),
      defaultBaseUrl: factory.defaultBaseUrl({}),
      capabilities: factory.capabilities,
      presets: (factory.presets ?? []).map((p) => ({
        name: p.name,
        baseUrl: p.baseUrl,
        keyEnv: p.apiKeyEnv,
        keySet: isSet(env, p.apiKeyEnv),
      })),
    };
  });
}

/** Every environment variable any backend or preset reads its key from (without loading any backend). */
export function knownKeyEnvs(): string[] {
  return [...new Set(Object.values(BACKEND_TABLE).flatMap((entry) => entry.keyEnvs))];
}

/** True when any provider key is set (so the zero-key local default does not apply). */
export function anyApiKeySet(env: Env): boolean {
  return knownKeyEnvs().some((name) => isSet(env, name));
}
