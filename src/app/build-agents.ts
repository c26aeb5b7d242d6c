import type { ToolProvider } from '../tools/tool-provider.js';
import {
  backendFactories,
  backendTypes,
  findBackendFactory,
  findBuiltInPrice,
  knownContextWindow,
  rateLimited,
} from '../backends/index.js';
import { localModelEnv, type AgentConfig, type BackendConfig, type MassGenConfig } from '../config/index.js';
import type { AgentSpec } from '../coordination/index.js';
import type {
  BackendCapabilities,
  Backend,
  BackendFactory,
  BackendFeatures,
  BackendSettings,
  HarnessSettings,
  PrepareContext,
} from '../types/backend.js';
import { mediaInputOf } from '../media/agent-media-checks.js';
import { ConfigError } from '../types/errors.js';
import type { ModelPrice } from '../types/usage.js';
import { closestMatch } from '../util/closest-match.js';
import { RateLimiter, type CallLimiter, type CallLimiterFactory } from '../util/rate-limiter.js';
import type { Tool } from '../tools/define-tool.js';
import type { RunSkills } from './agent-skills.js';
import { buildToolRegistry, type AgentSandbox } from './build-tools.js';
import { loadedFeature, type ToolFeatures } from './tool-features.js';
import type { ExternalAgent } from './external-agents.js';
import { bwrapArgs } from '../tools/execute-command/index.js';

export type Env = Readonly<Record<string, string | undefined>>;

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

function supporters(capability: keyof BackendCapabilities): string {
  return backendFactories
    .filter((f) => f.capabilities[capability])
    .map((f) => f.type)
    .join(', ');
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
          hint: `backends that support it: ${supporters(capability)}`,
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
  const preset = findBackendFactory(backend.type)
    ? undefined
    : findBackendFactory('chatcompletion')?.presets?.find((p) => p.name === backend.type);
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
        hint: `the ${factory.type} backend needs a model name`,
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
  const fallback = findBackendFactory(backend.type)?.defaultModel;
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

/** What {@link buildAgentSpecs} needs for tools beyond the config. */
export interface AgentToolInputs {
  /** Each agent's loaded custom tools, by config position (see `loadAgentCustomTools`). */
  custom: readonly (readonly Tool[])[];
  /** Relative paths in tool settings resolve against this (the config file's folder). */
  baseDir: string;
  /** Per agent id: the workspace its filesystem tools and commands are confined to. */
  sandboxes?: ReadonlyMap<string, AgentSandbox>;
  /** Agents from other frameworks, loaded by position (see `loadExternalAgents`). */
  externals?: ReadonlyMap<number, ExternalAgent>;
  /**
   * Makes the limiter for a model with `rate_limits` (default: one in-process `RateLimiter` per model
   * and run). A batch shares one across its runs; a queue worker shares one through Redis.
   */
  limiters?: CallLimiterFactory;
  /** The run's Agent Skills (see `loadRunSkills`): listed in each agent's system prompt, with `load_skill`. */
  skills?: RunSkills | null;
  /** The modules of the optional tools the config uses (see `loadToolFeatures`). */
  features?: ToolFeatures;
  /** Tools of run-level capabilities for one agent (subagents). */
  providers?: (agentId: string) => readonly ToolProvider[];
}

/** A harness's workspace, path rule and MassGen `claude_code` options. */
function harnessSettings(backend: BackendConfig, sandbox: AgentSandbox): HarnessSettings {
  return {
    workspace: sandbox.workspace,
    checkWrite: async (target, phase) => {
      const decision = await sandbox.checkPath(target, 'write', phase);
      return decision.allowed ? { allowed: true } : decision;
    },
    env: sandbox.env,
    sandboxed: (phase, readable) => {
      if (!sandbox.bwrap) return undefined;
      const layout = sandbox.layout(phase);
      return [
        sandbox.bwrap,
        ...bwrapArgs({
          ...layout,
          readOnly: [...layout.readOnly, ...readable],
          network: true, // The harness talks to its model.
          chdir: sandbox.workspace,
          privateTmp: false,
        }),
      ];
    },
    ...(backend.permission_mode ? { permissionMode: backend.permission_mode } : {}),
    ...(backend.allowed_tools ? { allowedTools: backend.allowed_tools } : {}),
    ...(backend.disallowed_tools ? { disallowedTools: backend.disallowed_tools } : {}),
    ...(backend.system_prompt !== undefined ? { systemPrompt: backend.system_prompt } : {}),
    ...(backend.append_system_prompt !== undefined
      ? { appendSystemPrompt: backend.append_system_prompt }
      : {}),
    ...(backend.max_thinking_tokens ? { maxThinkingTokens: backend.max_thinking_tokens } : {}),
  };
}

/**
 * Builds the orchestrator's agents from a validated config. Every agent is checked before any
 * backend is created, so a missing key stops the run before anything starts. Without `tools`, MCP
 * servers still get registries (relative paths then resolve against the current folder) but no
 * custom tools are loaded.
 */
export function buildAgentSpecs(config: MassGenConfig, env: Env, tools?: AgentToolInputs): AgentSpec[] {
  const resolved = config.agents.map((agent, index) => resolveAgentSettings(agent, index, env));
  // One limiter per model, shared by every agent that uses it.
  const limiters = new Map<string, CallLimiter>();
  const team = {};
  return config.agents.map((agent, index) => {
    const { settings, factory } = resolved[index] as (typeof resolved)[number];
    settings.team = team;
    const external = tools?.externals?.get(index);
    if (external) settings.external = external;
    const sandbox = tools?.sandboxes?.get(agent.id);
    if (factory.harness && sandbox) settings.harness = harnessSettings(agent.backend, sandbox);
    let backend: Backend;
    try {
      backend = factory.create(settings);
    } catch (error) {
      // A backend that cannot be made from what the config names (e.g. an export that is not an agent).
      if (error instanceof ConfigError && error.path === undefined)
        throw new ConfigError(`agents[${index}] (${agent.id}): ${error.message}`, {
          path: `agents[${index}].backend`,
          ...(error.hint ? { hint: error.hint } : {}),
        });
      throw error;
    }
    const limits = config.rate_limits[settings.model];
    if (limits) {
      let limiter = limiters.get(settings.model);
      if (!limiter) {
        const options = {
          ...(limits.requests_per_minute === undefined
            ? {}
            : { requestsPerMinute: limits.requests_per_minute }),
          ...(limits.concurrent_requests === undefined ? {} : { concurrent: limits.concurrent_requests }),
        };
        limiter = tools?.limiters ? tools.limiters(settings.model, options) : new RateLimiter(options);
        limiters.set(settings.model, limiter);
      }
      backend = rateLimited(backend, limiter);
    }
    const spec: AgentSpec = {
      id: agent.id,
      backend,
      maxRetries: agent.backend.max_retries,
      // The kinds of attachments and tool media its model is shown; the rest it reads about in a note.
      mediaIn: mediaInputOf(factory, settings).kinds,
    };
    const price = priceFor(config, settings);
    if (price) spec.price = price;
    const contextWindow = agent.backend.context_window ?? knownContextWindow(settings.model);
    if (contextWindow !== undefined) spec.contextWindow = contextWindow;
    if (agent.system_message !== undefined) spec.systemMessage = agent.system_message;
    const skills = tools?.skills?.byAgent.get(agent.id) ?? [];
    if (skills.length > 0 || tools?.skills?.evolve) {
      const list = loadedFeature(tools?.features?.skills, 'skills').prompt(skills, {
        budget: tools!.skills!.promptBudget,
        evolve: tools!.skills!.evolve,
      });
      spec.systemMessage = spec.systemMessage ? `${spec.systemMessage.trim()}\n\n${list}` : list;
    }
    if (agent.subtask !== undefined) spec.subtask = agent.subtask;
    const registry = buildToolRegistry(
      agent,
      tools?.custom[index] ?? [],
      tools?.baseDir ?? '.',
      tools?.sandboxes?.get(agent.id),
      skills,
      config.tools.browser,
      config.tools.computer,
      tools?.features,
      mediaInputOf(factory, settings),
      tools?.providers?.(agent.id),
    );
    if (registry) spec.tools = registry;
    return spec;
  });
}

/** The API keys in use, so they can be scrubbed from anything written to disk. */
export function secretValues(config: MassGenConfig, env: Env): string[] {
  return config.agents.flatMap((agent, index) => {
    try {
      const key = resolveAgentSettings(agent, index, env).settings.apiKey;
      return key ? [key] : [];
    } catch {
      return [];
    }
  });
}
