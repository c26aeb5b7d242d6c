import type {
  Backend,
  BackendFactory,
  BackendSettings,
  ModelRequest,
  ModelStreamPart,
} from '../../types/backend.js';
import { externalAgentFactory, notAnAgent } from './external-factory.js';
import { ProviderError } from '../../types/errors.js';
import type { ChatMessage, ToolDefinition } from '../../types/messages.js';
import { emptyUsage } from '../../types/usage.js';
import { untilAborted } from '../../util/abort.js';
import { importFromProject } from './import-from-project.js';

const TYPE = 'openai_agents';
const PACKAGE = '@openai/agents';

/** The parts of `@openai/agents` this adapter uses, as loaded from the user's project. */
interface AgentsSdk {
  run(agent: unknown, input: unknown[], options: { stream: true; signal: AbortSignal }): Promise<StreamedRun>;
  tool(options: {
    name: string;
    description: string;
    parameters: Record<string, unknown>;
    strict: false;
    execute: () => Promise<string>;
  }): unknown;
}
interface StreamedRun extends AsyncIterable<RunEvent> {
  completed: Promise<void>;
  rawResponses: { usage?: { inputTokens?: number; outputTokens?: number } }[];
  error?: unknown;
}
type RunEvent =
  | { type: 'raw_model_stream_event'; data: { type: string; delta?: string } }
  | { type: 'run_item_stream_event'; name: string; item: RunItem }
  | { type: 'agent_updated_stream_event' };
interface RunItem {
  type: string;
  rawItem: { type?: string; name?: string; callId?: string; arguments?: string; output?: unknown };
  output?: unknown;
}
interface AgentLike {
  name?: string;
  tools?: unknown[];
  clone(config: Record<string, unknown>): unknown;
}

/** `@openai/agents` as the user's module sees it (same copy as their Agent), or a clear error. */
const loadSdk = async (from: string) => (await importFromProject(PACKAGE, from)) as AgentsSdk;

/** The conversation as the Agents SDK's input items: tool calls and results as function-call items. */
function toInputItems(messages: readonly ChatMessage[]): unknown[] {
  return messages.flatMap((m): unknown[] => {
    if (m.role === 'system' || m.role === 'user') return [{ role: m.role, content: m.content }];
    if (m.role === 'tool') {
      return [
        {
          type: 'function_call_result',
          callId: m.toolCallId,
          name: m.toolName,
          status: 'completed',
          output: { type: 'text', text: m.content },
        },
      ];
    }
    const text = m.content
      ? [{ role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: m.content }] }]
      : [];
    const calls = (m.toolCalls ?? []).map((c) => ({
      type: 'function_call',
      callId: c.id,
      name: c.name,
      status: 'completed',
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
    }));
    return [...text, ...calls];
  });
}

const parseArguments = (raw: string | undefined): unknown => {
  try {
    return JSON.parse(raw ?? '{}');
  } catch {
    return raw ?? '';
  }
};

/**
 * An OpenAI Agents JS `Agent` as a team member: each step is one `run()` of a clone of the agent with
 * massgen's tools added and `toolUseBehavior: { stopAtToolNames }` on them, so the agent's own tools run
 * inside its loop and a call of `new_answer`, `vote` or another massgen tool ends it and hands the turn
 * back. `@openai/agents` is loaded from the user's project, the same copy their module uses.
 */
export const openAIAgentsBackend: BackendFactory = {
  type: TYPE,
  description: 'An OpenAI Agents JS Agent exported by your module (module:, export:)',
  ...externalAgentFactory(),
  create(settings: BackendSettings): Backend {
    const external = settings.external;
    const agent = external?.agent as AgentLike | undefined;
    if (typeof agent?.clone !== 'function') {
      throw notAnAgent(
        settings,
        `an OpenAI Agents Agent (new Agent({ name, instructions, tools }) from "${PACKAGE}")`,
        'export the agent itself, e.g. export const agent = new Agent({ name, instructions, model })',
      );
    }
    const sdk = loadSdk(external?.module ?? process.cwd());
    sdk.catch(() => {}); // Reported at the first step, as that agent's failure.
    return {
      type: TYPE,
      model: settings.model,
      stream: (request) => streamRun(agent, sdk, request),
    };
  },
};

async function* streamRun(
  agent: AgentLike,
  sdkPromise: Promise<AgentsSdk>,
  request: ModelRequest,
): AsyncGenerator<ModelStreamPart> {
  const sdk = await sdkPromise;
  const ours = new Set(request.tools.map((t) => t.name));
  const added = request.tools.map((t: ToolDefinition) =>
    sdk.tool({
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      strict: false,
      execute: async () => '',
    }),
  );
  const runner = agent.clone({
    tools: [...(agent.tools ?? []), ...added],
    toolUseBehavior: { stopAtToolNames: [...ours] },
  });
  const result = await untilAborted(
    sdk.run(runner, toInputItems(request.messages), { stream: true, signal: request.signal }),
    request.signal,
  );
  let called = false;
  for await (const event of result) {
    if (event.type === 'raw_model_stream_event') {
      if (event.data.type === 'output_text_delta' && event.data.delta)
        yield { type: 'text-delta', text: event.data.delta };
      continue;
    }
    if (event.type !== 'run_item_stream_event') continue;
    const { item } = event;
    const raw = item.rawItem;
    if (item.type === 'tool_call_item' && raw.type === 'function_call' && raw.name !== undefined) {
      const call = { id: raw.callId ?? raw.name, name: raw.name, arguments: parseArguments(raw.arguments) };
      if (ours.has(raw.name)) {
        called = true;
        yield { type: 'tool-call', call };
      } else
        yield { type: 'provider-tool-call', callId: call.id, toolName: call.name, input: call.arguments };
    } else if (item.type === 'tool_call_output_item' && raw.name !== undefined && !ours.has(raw.name)) {
      yield {
        type: 'provider-tool-result',
        callId: raw.callId ?? raw.name,
        toolName: raw.name,
        output: item.output,
        isError: false,
      };
    }
  }
  await result.completed;
  if (result.error) throw new ProviderError(TYPE, `${TYPE}: ${String(result.error)}`, { retryable: false });
  const usage = emptyUsage();
  for (const response of result.rawResponses) {
    usage.inputTokens += response.usage?.inputTokens ?? 0;
    usage.outputTokens += response.usage?.outputTokens ?? 0;
  }
  yield { type: 'finish', finishReason: called ? 'tool-calls' : 'stop', usage };
}
