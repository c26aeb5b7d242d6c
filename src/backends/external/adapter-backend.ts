import type {
  AgentAdapter,
  Backend,
  BackendFactory,
  BackendSettings,
  ModelRequest,
  ModelStreamPart,
} from '../../types/backend.js';
import { ConfigError, ProviderError } from '../../types/errors.js';
import { emptyUsage } from '../../types/usage.js';
import { isRecord } from '../../util/guards.js';
import { aiSdkAgentBackend } from './ai-sdk-agent.js';
import { externalAgentFactory } from './external-factory.js';
import { langGraphBackend } from './langgraph.js';
import { openAIAgentsBackend } from './openai-agents.js';

/** The TypeScript frameworks `type: external, framework:` can name, by their own backend types. */
export const TS_FRAMEWORKS: Readonly<Record<string, BackendFactory>> = {
  langgraph: langGraphBackend,
  openai_agents: openAIAgentsBackend,
  ai_sdk_agent: aiSdkAgentBackend,
};

/** The Python frameworks the bridge knows (see `python/massgen_bridge/agents.py`). */
export const PYTHON_FRAMEWORKS = ['python', 'ag2', 'smolagents', 'agentscope', 'crewai'] as const;

/** Whether `value` has the shape of an {@link AgentAdapter} (a user's adapter is checked with it). */
export const isAgentAdapter = (value: unknown): value is AgentAdapter =>
  isRecord(value) && typeof (value as { stream?: unknown }).stream === 'function';

const PART_TYPES = new Set([
  'text-delta',
  'reasoning-delta',
  'tool-call',
  'provider-tool-call',
  'provider-tool-result',
  'finish',
]);

/**
 * An adapter's stream, checked at the boundary: a user's adapter may leave usage fields out (they count
 * as 0) but not invent part types.
 */
async function* checkedParts(
  adapter: AgentAdapter,
  request: ModelRequest,
  label: string,
): AsyncGenerator<ModelStreamPart> {
  for await (const part of adapter.stream(request)) {
    if (!isRecord(part) || !PART_TYPES.has(String(part.type)))
      throw new ProviderError(
        label,
        `${label}: the adapter yielded ${JSON.stringify(part)?.slice(0, 80)}, not a stream part`,
        {
          retryable: false,
        },
      );
    yield part.type === 'finish' ? { ...part, usage: { ...emptyUsage(), ...part.usage } } : part;
  }
}

function adapterBackend(type: string, settings: BackendSettings): Backend {
  const adapter = settings.external?.agent;
  if (!isAgentAdapter(adapter))
    throw new ConfigError(`the ${type} agent was not prepared (run it through runMassGen or the CLI)`);
  const label = `${type}:${settings.external?.framework ?? type}`;
  return { type, model: settings.model, stream: (request) => checkedParts(adapter, request, label) };
}

/**
 * `type: external`: an agent of any framework massgen has an adapter for, named by `framework:` — a
 * TypeScript framework (the same as its own type), a Python framework over the bridge, or an adapter
 * the config registers under `adapters:`.
 */
export const externalBackend: BackendFactory = {
  type: 'external',
  description: 'An agent from another framework (framework: langgraph, python, ag2, … or your adapter)',
  ...externalAgentFactory(),
  moduleOptional: true,
  create(settings) {
    const ts = TS_FRAMEWORKS[settings.external?.framework ?? ''];
    return ts ? ts.create(settings) : adapterBackend('external', settings);
  },
};

/** `type: ag2`: AG2 agents in MassGen's config shape (`agent_config` or `group_config`), over the bridge. */
export const ag2Backend: BackendFactory = {
  type: 'ag2',
  description: "AG2 (AutoGen) agents, MassGen's agent_config / group_config (Python, over the bridge)",
  ...externalAgentFactory(),
  moduleOptional: true,
  create: (settings) => adapterBackend('ag2', settings),
};
