import { backendTypes, findBackendFactory } from '../backends/index.js';
import type { MassGenConfig } from '../config/index.js';
import type { AgentSpec } from '../coordination/index.js';
import type { BackendSettings } from '../types/backend.js';
import { ConfigError } from '../types/errors.js';
import { closestMatch } from '../util/closest-match.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** The resolved backend settings of every agent, checked against the registry (no backend built yet). */
export function resolveBackendSettings(config: MassGenConfig, env: Env): BackendSettings[] {
  return config.agents.map((agent, index) => {
    const where = `agents[${index}] (${agent.id})`;
    const { backend } = agent;
    const factory = findBackendFactory(backend.type);
    if (!factory) {
      const suggestion = closestMatch(backend.type, backendTypes());
      throw new ConfigError(
        `${where}: unknown backend type "${backend.type}"${suggestion ? ` — did you mean "${suggestion}"?` : ''}`,
        {
          path: `agents[${index}].backend.type`,
          hint: `available backend types: ${backendTypes().join(', ')}`,
        },
      );
    }
    const settings: BackendSettings = {
      type: backend.type,
      model: backend.model,
      providerOptions: { ...backend.provider_options },
    };
    const baseUrl = backend.base_url ?? factory.defaultBaseUrl;
    if (baseUrl !== undefined) settings.baseUrl = baseUrl;
    const apiKey = backend.api_key ?? (factory.apiKeyEnv ? env[factory.apiKeyEnv] : undefined);
    if (apiKey) settings.apiKey = apiKey;
    if (backend.temperature !== undefined) settings.temperature = backend.temperature;
    if (backend.max_tokens !== undefined) settings.maxTokens = backend.max_tokens;
    if (backend.headers !== undefined) settings.headers = { ...backend.headers };
    if (!settings.apiKey && factory.apiKeyEnv && !factory.keyOptional?.(settings)) {
      throw new ConfigError(
        `${where}: the ${backend.type} backend needs an API key — set the ${factory.apiKeyEnv} environment variable (or backend.api_key)`,
        {
          path: `agents[${index}].backend.api_key`,
          hint: `export ${factory.apiKeyEnv}=… or put it in a .env file in this folder`,
        },
      );
    }
    return settings;
  });
}

/** Builds the orchestrator's agents from a validated config. */
export function buildAgentSpecs(config: MassGenConfig, env: Env): AgentSpec[] {
  const settings = resolveBackendSettings(config, env);
  return config.agents.map((agent, index) => {
    const backendSettings = settings[index] as BackendSettings;
    const factory = findBackendFactory(backendSettings.type);
    if (!factory) throw new ConfigError(`unknown backend type "${backendSettings.type}"`);
    const spec: AgentSpec = {
      id: agent.id,
      backend: factory.create(backendSettings),
      maxRetries: agent.backend.max_retries,
    };
    if (agent.system_message !== undefined) spec.systemMessage = agent.system_message;
    return spec;
  });
}

/** The API keys in use, so they can be scrubbed from anything written to disk. */
export function secretValues(config: MassGenConfig, env: Env): string[] {
  try {
    return resolveBackendSettings(config, env).flatMap((s) => (s.apiKey ? [s.apiKey] : []));
  } catch {
    return [];
  }
}
