import { knownContextWindow } from '../backends/context-windows.js';
import { rateLimited } from '../backends/rate-limited-backend.js';
import type { CapabilityParts } from '../capability/index.js';
import type { BackendConfig, MassGenConfig } from '../config/index.js';
import type { AgentSpec } from '../coordination/index.js';
import { mediaInputOf } from '../media/agent-media-checks.js';
import type { AgentSandbox } from '../tools/agent-sandbox.js';
import type { Tool } from '../tools/define-tool.js';
import { bwrapArgs } from '../tools/execute-command/index.js';
import type { Backend, HarnessSettings } from '../types/backend.js';
import type { Env } from '../types/env.js';
import { ConfigError } from '../types/errors.js';
import { RateLimiter, type CallLimiter, type CallLimiterFactory } from '../util/rate-limiter.js';
import { priceFor, resolveAgentSettings } from './backend-settings.js';
import { buildToolRegistry } from './build-tools.js';
import { compressorFor } from '../compression/agent-compression.js';
import { toolResultFiles } from '../compression/tool-result-file.js';
import { runScrubber } from './secrets.js';
import type { SecretScrubber } from '../util/secret-scrubber.js';

export {
  modelLabel,
  prepareBackends,
  priceFor,
  resolveAgentSettings,
  resolveBackendSettings,
  secretValues,
  type Env,
} from './backend-settings.js';

/** What {@link buildAgentSpecs} needs for tools beyond the config. */
export interface AgentToolInputs {
  /** Each agent's custom tools, by config position (see `loadAgentCustomTools`, `agentCustomTools`). */
  custom: readonly (readonly Tool[])[];
  /** Relative paths in tool settings resolve against this (the config file's folder). */
  baseDir: string;
  /** Per agent id: the workspace its filesystem tools and commands are confined to. */
  sandboxes?: ReadonlyMap<string, AgentSandbox>;
  /**
   * Makes the limiter for a model with `rate_limits` (default: one in-process `RateLimiter` per model
   * and run). A batch shares one across its runs; a queue worker shares one through Redis.
   */
  limiters?: CallLimiterFactory;
  /** What the run's capabilities add, in list order: tools, prompt sections, agents from other frameworks. */
  parts?: readonly CapabilityParts[];
  /** The run's scrubber, for what the agents' tools write (large results); made here when not given. */
  scrubber?: SecretScrubber;
}

/** Each agent's system message with the capabilities' sections, in list order (unchanged agents as they are). */
export function withCapabilityPrompts(agents: AgentSpec[], parts: readonly CapabilityParts[]): AgentSpec[] {
  const prompts = parts.flatMap((part) => (part.prompt ? [part.prompt] : []));
  if (prompts.length === 0) return agents;
  return agents.map((agent) => {
    const message = prompts.reduce<string | undefined>(
      (text, prompt) => prompt(agent.id, text),
      agent.systemMessage,
    );
    if (message === agent.systemMessage) return agent;
    const { systemMessage: _, ...rest } = agent;
    return message === undefined ? rest : { ...rest, systemMessage: message };
  });
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
  const parts = tools?.parts ?? [];
  // One limiter per model, shared by every agent that uses it.
  const limiters = new Map<string, CallLimiter>();
  const team = {};
  const { compression } = config.memory;
  const scrubber = tools?.scrubber ?? runScrubber(config, env);
  const specs = config.agents.map((agent, index) => {
    const { settings, factory } = resolved[index] as (typeof resolved)[number];
    settings.team = team;
    const external = parts.find((part) => part.externals?.has(agent.id))?.externals?.get(agent.id);
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
    const compressor = compressorFor(compression, backend, (model) => factory.create({ ...settings, model }));
    if (compressor) spec.compressor = compressor;
    if (agent.system_message !== undefined) spec.systemMessage = agent.system_message;
    if (agent.subtask !== undefined) spec.subtask = agent.subtask;
    const registry = buildToolRegistry({
      agent,
      index,
      customTools: tools?.custom[index] ?? [],
      baseDir: tools?.baseDir ?? '.',
      sandbox: tools?.sandboxes?.get(agent.id),
      mediaIn: mediaInputOf(factory, settings),
      oversized: (workspace) =>
        toolResultFiles({
          workspace,
          thresholdTokens: compression.tool_result_file_threshold,
          scrub: (text) => scrubber.text(text),
          maxNoteChars: agent.backend.max_tool_result_chars,
        }),
      parts,
    });
    if (registry) spec.tools = registry;
    return spec;
  });
  return withCapabilityPrompts(specs, parts);
}
