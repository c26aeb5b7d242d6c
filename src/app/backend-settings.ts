import { backendTypes, defaultModelOf, keyEnvsOf, registryTypeOf } from '../backends/backend-table.js';
import { findBuiltInPrice } from '../backends/pricing.js';
import { findBackendFactory, loadConfigBackends } from '../backends/registry.js';
import { localModelEnv, type AgentConfig, type BackendConfig, type MassGenConfig } from '../config/index.js';
import type {
  BackendCapabilities,
  BackendFactory,
  BackendFeatures,
  BackendSettings,
  PrepareContext,
} from '../types/backend.js';
import { ConfigError } from '../types/errors.js';
import type { ModelPrice } from '../types/usage.js';
import { closestMatch } from '../util/closest-match.js';
import type { Env } from '../types/env.js';

export type { Env };

/** Backend types that speak the OpenAI-compatible wire format and accept extra request-body fields. */
const EXTRA_BODY_TYPES = new Set(['chatcompletion', 'vllm', 'sglang', 'inference', 'lmstudio', 'ollama']);
/** Types that cost nothing per token: the user's own hardware, and the scripted demo team. */
const LOCAL_TYPES = new Set(['vllm', 'sglang', 'inference', 'lmstudio', 'ollama', 'local', 'demo']);

/** The features the config asks of a backend, in the backend contract's terms. */
function featuresOf(backend: BackendConfig): BackendFeatures {
  const features: BackendFeatures = {};
  if (backend.enable_web_search !== undefined) features.webSearch = backend.enable_web_search;
  // With a workspace, enable_code_execution means massgen's own execute_command, not the provider's sandbox.
  const code =
    (backend.cwd === undefined ? backend.enable_code_execution : undefined) ??
    backend.enable_code_interpreter;
  if (code !== undefined) features.codeExecution = code;
  if (backend.reasoning) features.reasoning = { ...backend.reasoning };
  if (backend.text) features.textVerbosity = backend.text.verbosity;
  if (backend.thinking) {
    features.thinking = {
      ...(backend.thinking.budget_tokens === undefined
        ? {}
        : { budgetTokens: backend.thinking.budget_tokens }),
      ...(backend.thinking.include_thoughts === undefined
        ? {}
        : { includeThoughts: backend.thinking.include_thoughts }),
    };
  }
  return features;
}

/** Config errors naming the backend, one for each thing the config asks of it that it cannot do. */
function capabilityProblems(
  where: string,
  index: number,
  factory: BackendFactory,
  backend: BackendConfig,
): ConfigError[] {
  const problems: ConfigError[] = [];
  const at = `agents[${index}].backend`;
  const asked: [boolean, keyof BackendCapabilities, string][] = [
    [backend.enable_web_search === true, 'webSearch', 'enable_web_search'],
    [
      backend.enable_code_execution === true && backend.cwd === undefined,
      'codeExecution',
      'enable_code_execution',
    ],
    [backend.enable_code_interpreter === true, 'codeExecution', 'enable_code_interpreter'],
    [backend.reasoning !== undefined, 'reasoning', 'reasoning'],
    [backend.thinking !== undefined, 'reasoning', 'thinking'],
  ];
  for (const [requested, capability, key] of asked) {
    if (requested && !factory.capabilities[capability]) {
      problems.push(
        new ConfigError(`${where}: the ${factory.type} backend does not support ${key}`, {
          path: `${at}.${key}`,
          // Only this run's backends are loaded: the full list is one command away.
          hint: 'massgen --list-backends shows which backends support it',
        }),
      );
    }
  }
  const budget = backend.thinking?.budget_tokens;
  if (factory.type === 'claude' && budget !== undefined && budget < 1024) {
    problems.push(
      new ConfigError(
        `${where}: thinking.budget_tokens must be at least 1024 for claude (Anthropic's minimum)`,
        {
          path: `agents[${index}].backend.thinking.budget_tokens`,
        },
      ),
    );
  }
  const localKeys = (['threads', 'context_size', 'gpu'] as const).filter((k) => backend[k] !== undefined);
  if (localKeys.length > 0 && factory.type !== 'local') {
    problems.push(
      new ConfigError(`${where}: the ${factory.type} backend does not accept ${localKeys.join(', ')}`, {
        path: `${at}.${localKeys[0]}`,
        hint: 'threads, context_size and gpu are settings of the local backend (type: local)',
      }),
    );
  }
  const extra = (['top_k', 'repetition_penalty', 'chat_template_kwargs'] as const).filter(
    (k) => backend[k] !== undefined,
  );
  if (extra.length > 0 && !EXTRA_BODY_TYPES.has(factory.type)) {
    problems.push(
      new ConfigError(`${where}: the ${factory.type} backend does not accept ${extra.join(', ')}`, {
        path: `${at}.${extra[0]}`,
        hint: `these are for OpenAI-compatible servers: ${[...EXTRA_BODY_TYPES].join(', ')}`,
      }),
    );
  }
  return problems;
}

/**
 * One agent's backend settings and factory, checked against the registry (no backend built yet).
 * Throws the first problem; with `problems`, collects every problem there instead (`--validate`) and
 * throws only one it cannot check past (an unknown backend type or provider).
 */
export function resolveAgentSettings(
  agent: AgentConfig,
  index: number,
  env: Env,
  problems?: ConfigError[],
): { settings: BackendSettings; factory: BackendFactory } {
  const report = (error: ConfigError): void => {
    if (!problems) throw error;
    problems.push(error);
  };
  const where = `agents[${index}] (${agent.id})`;
  const { backend } = agent;
  // MassGen names OpenAI-compatible providers as backend types (`type: zai`): the chatcompletion preset.
  // Asked of chatcompletion only for a preset's name: an unknown type loaded no backend to ask.
  const preset =
    registryTypeOf(backend.type) === 'chatcompletion' && backend.type !== 'chatcompletion'
      ? findBackendFactory('chatcompletion')?.presets?.find((p) => p.name === backend.type)
      : undefined;
  const provider = preset && backend.provider === undefined ? preset.name : backend.provider;
  const factory = preset ? findBackendFactory('chatcompletion') : findBackendFactory(backend.type);
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
  if (provider !== undefined) {
    const names = (factory.presets ?? []).map((p) => p.name);
    if (!names.includes(provider)) {
      const suggestion = closestMatch(provider, names);
      throw new ConfigError(
        `${where}: unknown provider "${provider}" for the ${factory.type} backend${suggestion ? ` — did you mean "${suggestion}"?` : ''}`,
        {
          path: `agents[${index}].backend.provider`,
          hint:
            names.length > 0
              ? `providers: ${names.join(', ')}`
              : `the ${factory.type} backend has no presets`,
        },
      );
    }
  }
  capabilityProblems(where, index, factory, backend).forEach(report);
  const misplaced = (Object.keys(ONLY_FOR) as (keyof typeof ONLY_FOR)[]).filter(
    (key) => backend[key] !== undefined && !ONLY_FOR[key].test(factory),
  );
  for (const key of misplaced) {
    report(
      new ConfigError(`${where}: ${key} is for ${ONLY_FOR[key].what}, not the ${factory.type} backend`, {
        path: `agents[${index}].backend.${key}`,
      }),
    );
  }
  if (factory.harness && backend.cwd === undefined) {
    report(
      new ConfigError(`${where}: the ${factory.type} backend needs cwd: (the workspace it works in)`, {
        path: `agents[${index}].backend.cwd`,
        hint: `e.g. cwd: ${agent.id}_workspace`,
      }),
    );
  }
  if (factory.external) {
    if (backend.module === undefined && !factory.moduleOptional) {
      report(
        new ConfigError(
          `${where}: the ${factory.type} backend needs module: (the file that exports the agent)`,
          {
            path: `agents[${index}].backend.module`,
            hint: 'e.g. module: ./agent.ts and export: agent',
          },
        ),
      );
    }
  } else if (backend.model === undefined && factory.defaultModel === undefined) {
    report(
      new ConfigError(`missing required key "model" at agents[${index}].backend`, {
        path: `agents[${index}].backend.model`,
        hint:
          factory.models === undefined
            ? `the ${factory.type} backend needs a model name`
            : `the ${factory.type} backend needs a model name: one of ${factory.models.join(', ')}`,
      }),
    );
  } else if (backend.module !== undefined || backend.export !== undefined) {
    report(
      new ConfigError(
        `${where}: module and export are for agents from other frameworks, not the ${factory.type} backend`,
        {
          path: `agents[${index}].backend.module`,
        },
      ),
    );
  }

  const settings: BackendSettings = {
    type: factory.type,
    model: modelLabel(backend),
    providerOptions: { ...backend.provider_options },
    features: featuresOf(backend),
  };
  if (provider !== undefined) settings.provider = provider;
  const baseUrl =
    backend.base_url ??
    factory.defaultBaseUrl(settings) ??
    // Azure's SDKs (and MassGen) read the endpoint from the environment.
    (factory.type === 'azure_openai' ? env.AZURE_OPENAI_ENDPOINT || undefined : undefined);
  if (baseUrl !== undefined) settings.baseUrl = baseUrl;
  if (backend.temperature !== undefined) settings.temperature = backend.temperature;
  if (backend.max_tokens !== undefined) settings.maxTokens = backend.max_tokens;
  if (backend.headers !== undefined) settings.headers = { ...backend.headers };
  if (backend.media_in !== undefined) settings.mediaIn = [...backend.media_in];
  const extraBody = Object.fromEntries(
    (['top_k', 'repetition_penalty', 'chat_template_kwargs'] as const).flatMap((k) =>
      backend[k] === undefined ? [] : [[k, backend[k]]],
    ),
  );
  if (Object.keys(extraBody).length > 0) settings.extraBody = extraBody;

  if (factory.type === 'local') {
    settings.local = {
      ...localModelEnv(env),
      ...(backend.threads === undefined ? {} : { threads: backend.threads }),
      ...(backend.context_size === undefined ? {} : { contextSize: backend.context_size }),
      ...(backend.gpu === undefined ? {} : { gpu: backend.gpu === true ? 'auto' : backend.gpu }),
    };
  }
  const keyEnvs = factory.apiKeyEnvs(settings);
  const apiKey =
    backend.api_key ?? keyEnvs.map((name) => env[name]).find((value) => value !== undefined && value !== '');
  if (apiKey) settings.apiKey = apiKey;
  if (!settings.apiKey && keyEnvs.length > 0 && !factory.keyOptional?.(settings)) {
    const names = keyEnvs.join(' or ');
    report(
      new ConfigError(
        `${where}: the ${factory.type} backend${settings.provider ? ` (${settings.provider})` : ''} needs an API key — set the ${names} environment variable (or backend.api_key)`,
        {
          path: `agents[${index}].backend.api_key`,
          hint: `export ${keyEnvs[0]}=… or put it in a .env file in this folder`,
        },
      ),
    );
  }
  if (factory.type === 'azure_openai' && settings.baseUrl === undefined) {
    report(
      new ConfigError(`${where}: the azure_openai backend needs base_url (your Azure OpenAI endpoint)`, {
        path: `agents[${index}].backend.base_url`,
        hint: 'e.g. base_url: https://<resource>.openai.azure.com, or set AZURE_OPENAI_ENDPOINT',
      }),
    );
  }
  return { settings, factory };
}

/** The model an agent runs, or for an agent that brings its own, a label naming it (`ai_sdk_agent:agent`). */
export function modelLabel(
  backend: Pick<BackendConfig, 'type' | 'model' | 'export' | 'framework' | 'agent_config' | 'group_config'>,
): string {
  if (backend.model !== undefined) return backend.model;
  const fallback = defaultModelOf(backend.type);
  if (fallback !== undefined) return fallback;
  if (backend.type === 'ag2') {
    const name = backend.agent_config?.name;
    return `ag2:${typeof name === 'string' ? name : backend.group_config ? 'group' : 'agent'}`;
  }
  return `${backend.framework ?? backend.type}:${backend.export ?? 'default'}`;
}

const forHarness = {
  test: (f: BackendFactory) => f.harness === true,
  what: 'coding-agent backends (claude_code, codex, gemini_cli)',
};
/** Backend keys that only some backends read: anywhere else they would be silently ignored. */
const ONLY_FOR = {
  framework: { test: (f: BackendFactory) => f.type === 'external', what: 'type: external' },
  agent_config: { test: (f: BackendFactory) => f.type === 'ag2', what: 'type: ag2' },
  group_config: { test: (f: BackendFactory) => f.type === 'ag2', what: 'type: ag2' },
  permission_mode: forHarness,
  disallowed_tools: forHarness,
  system_prompt: forHarness,
  append_system_prompt: forHarness,
  max_thinking_tokens: forHarness,
} as const;

/** The resolved backend settings of every agent, checked against the registry (no backend built yet). */
export function resolveBackendSettings(config: MassGenConfig, env: Env): BackendSettings[] {
  return config.agents.map((agent, index) => resolveAgentSettings(agent, index, env).settings);
}

/**
 * Runs each backend's one-time preparation (e.g. downloading and checking a local model) before any
 * agent starts; agents that share a model prepare it once.
 */
export async function prepareBackends(
  config: MassGenConfig,
  env: Env,
  context: PrepareContext,
): Promise<void> {
  await loadConfigBackends(config);
  const seen = new Set<string>();
  for (const [index, agent] of config.agents.entries()) {
    const { settings, factory } = resolveAgentSettings(agent, index, env);
    const key = `${settings.type}\u0000${settings.model}`;
    if (!factory.prepare || seen.has(key)) continue;
    seen.add(key);
    await factory.prepare(settings, context);
  }
}

/** The price for a model: the config's `pricing:` first, then zero for local servers, then the built-in table. */
export function priceFor(config: MassGenConfig, settings: BackendSettings): ModelPrice | undefined {
  const custom = config.pricing[settings.model];
  if (custom) {
    return {
      inputPerMillion: custom.input_per_million,
      outputPerMillion: custom.output_per_million,
      ...(custom.cached_input_per_million === undefined
        ? {}
        : { cachedInputPerMillion: custom.cached_input_per_million }),
    };
  }
  if (LOCAL_TYPES.has(settings.type)) return { inputPerMillion: 0, outputPerMillion: 0 };
  return findBuiltInPrice(settings.model);
}

/**
 * The API keys in use, so they can be scrubbed from anything written to disk: each agent's `api_key`
 * and every variable its backend type may read a key from. Read from the backend table, never from a
 * factory, so no key is missed because its backend's module has not loaded (or failed to).
 */
export function secretValues(config: MassGenConfig, env: Env): string[] {
  return config.agents.flatMap(({ backend }) => {
    const fromEnv = keyEnvsOf(backend.type).flatMap((name) => env[name] || []);
    return backend.api_key ? [backend.api_key, ...fromEnv] : fromEnv;
  });
}
