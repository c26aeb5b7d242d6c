import { backendFactories } from '../backends/index.js';
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
export function listBackends(env: Env): BackendListing[] {
  return backendFactories.map((factory) => {
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

/** Every environment variable any backend or preset reads its key from. */
export function knownKeyEnvs(): string[] {
  const names = new Set<string>();
  for (const factory of backendFactories) {
    for (const name of factory.apiKeyEnvs({})) names.add(name);
    for (const preset of factory.presets ?? []) if (preset.apiKeyEnv) names.add(preset.apiKeyEnv);
  }
  return [...names];
}

/** True when any provider key is set (so the zero-key local default does not apply). */
export function anyApiKeySet(env: Env): boolean {
  return knownKeyEnvs().some((name) => isSet(env, name));
}
