import type { ToolLoopAgent, ToolSet } from 'ai';
import type {
  Backend,
  BackendFactory,
  BackendSettings,
  ModelRequest,
  ModelStreamPart,
} from '../../types/backend.js';
import { externalAgentFactory, notAnAgent } from './external-factory.js';
import { toModelMessages } from '../ai-sdk/convert-messages.js';
import { errorToThrow } from '../ai-sdk/provider-errors.js';

const TYPE = 'ai_sdk_agent';

/** What massgen reads of an AI SDK `ToolLoopAgent`: its tools, and the settings it was made with. */
type AgentSettings = ConstructorParameters<typeof ToolLoopAgent<never, ToolSet>>[0];
interface AgentLike {
  tools?: ToolSet;
  settings?: AgentSettings;
}

function asAgent(value: unknown, settings: BackendSettings): Required<AgentLike> {
  const agent = value as AgentLike | null;
  const base = agent?.settings;
  if (
    typeof agent !== 'object' ||
    agent === null ||
    typeof base !== 'object' ||
    base === null ||
    !('model' in base)
  ) {
    throw notAnAgent(
      settings,
      `an AI SDK agent (new ToolLoopAgent({ model, tools, … }) from "ai")`,
      'export the agent itself, e.g. export const agent = new ToolLoopAgent({ model, instructions, tools })',
    );
  }
  return { tools: agent.tools ?? {}, settings: base };
}

/**
 * An AI SDK agent (`ToolLoopAgent` from `ai`) as a team member. Each step runs the agent's own loop —
 * its model, instructions and tools, which run inside it and show as the agent's own tool calls — with
 * massgen's tools (the workflow tools `new_answer` and `vote`, and any MCP or custom tools of the config)
 * added without an `execute`: calling one ends the agent's loop, and massgen takes over, exactly as with
 * a native model. Peers' updates therefore reach it at its next step.
 */
export const aiSdkAgentBackend: BackendFactory = {
  type: TYPE,
  description: 'An AI SDK agent (ToolLoopAgent from "ai") exported by your module (module:, export:)',
  ...externalAgentFactory({ reasoning: true }),
  create(settings: BackendSettings): Backend {
    const agent = asAgent(settings.external?.agent, settings);
    const own = new Set(Object.keys(agent.tools));
    return {
      type: TYPE,
      model: settings.model,
      async *stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
        // `ai` loads with the first step: only a run with such an agent pays for it.
        const [{ ToolLoopAgent }, { modelStreamParts, toToolSet }] = await Promise.all([
          import('ai'),
          import('../ai-sdk/full-stream-parts.js'),
        ]);
        const ours = toToolSet(request.tools.filter((t) => !own.has(t.name)));
        const runner = new ToolLoopAgent<never, ToolSet>({
          ...agent.settings,
          tools: { ...agent.tools, ...ours },
          // The orchestrator's system messages come with the conversation, beside the agent's instructions.
          allowSystemInMessages: true,
        });
        let reader;
        try {
          const result = await runner.stream({
            messages: toModelMessages(request.messages),
            abortSignal: request.signal,
          });
          reader = result.fullStream.getReader();
          yield* modelStreamParts(reader, request.signal, TYPE, own);
        } catch (error) {
          throw errorToThrow(error, request.signal, { provider: TYPE });
        } finally {
          reader?.cancel().catch(() => {});
        }
      },
    };
  },
};
