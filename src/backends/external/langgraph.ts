import type {
  Backend,
  BackendFactory,
  BackendSettings,
  ModelRequest,
  ModelStreamPart,
} from '../../types/backend.js';
import { externalAgentFactory, notAnAgent } from './external-factory.js';
import { ConfigError, ProviderError } from '../../types/errors.js';
import type { ChatMessage, ToolDefinition } from '../../types/messages.js';
import { emptyUsage } from '../../types/usage.js';
import { isRecord } from '../../util/guards.js';
import { importFromProject } from './import-from-project.js';

const TYPE = 'langgraph';
const CORE = '@langchain/core';

/** A compiled LangGraph graph, as far as massgen drives it. */
interface GraphLike {
  stream(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
}
/** A function that builds the graph from massgen's tools (e.g. around `createReactAgent`). */
type GraphFactory = (tools: unknown[]) => GraphLike | Promise<GraphLike>;

/** The parts of `@langchain/core` used here, loaded from the user's project (the same classes). */
interface Core {
  messages: Record<
    'HumanMessage' | 'SystemMessage' | 'AIMessage' | 'ToolMessage',
    new (fields: never) => unknown
  >;
  tool: (fn: () => Promise<string>, options: Record<string, unknown>) => unknown;
}

/** A LangChain message as read here. */
interface MessageLike {
  getType?: () => string;
  _getType?: () => string;
  content?: unknown;
  tool_calls?: { id?: string; name: string; args?: unknown }[];
  tool_call_id?: string;
  name?: string;
  status?: string;
  usage_metadata?: { input_tokens?: number; output_tokens?: number };
}

const isGraph = (value: unknown): value is GraphLike =>
  isRecord(value) && typeof (value as { stream?: unknown }).stream === 'function';

async function loadCore(from: string): Promise<Core> {
  const [messages, tools] = await Promise.all([
    importFromProject(`${CORE}/messages`, from),
    importFromProject(`${CORE}/tools`, from),
  ]);
  return { messages: messages as Core['messages'], tool: (tools as { tool: Core['tool'] }).tool };
}

/** The conversation as LangChain messages. */
function toMessages(core: Core, messages: readonly ChatMessage[]): unknown[] {
  const { HumanMessage, SystemMessage, AIMessage, ToolMessage } = core.messages;
  const make = (Class: new (fields: never) => unknown, fields: Record<string, unknown>) =>
    new Class(fields as never);
  return messages.map((m) => {
    if (m.role === 'system') return make(SystemMessage, { content: m.content });
    if (m.role === 'user') return make(HumanMessage, { content: m.content });
    if (m.role === 'tool')
      return make(ToolMessage, { content: m.content, tool_call_id: m.toolCallId, name: m.toolName });
    return make(AIMessage, {
      content: m.content,
      tool_calls: (m.toolCalls ?? []).map((c) => ({
        id: c.id,
        name: c.name,
        args: isRecord(c.arguments) ? c.arguments : {},
        type: 'tool_call',
      })),
    });
  });
}

/**
 * massgen's tools as LangChain tools. `returnDirect` ends a prebuilt ReAct agent's loop right after
 * one is called; the placeholder result never reaches a model, since massgen takes the call from the
 * graph's messages and runs it itself.
 */
const toLangChainTools = (core: Core, tools: readonly ToolDefinition[]) =>
  tools.map((t) =>
    core.tool(async () => 'handed to massgen', {
      name: t.name,
      description: t.description,
      schema: t.parameters,
      returnDirect: true,
    }),
  );

const typeOf = (m: MessageLike) => m.getType?.() ?? m._getType?.() ?? '';

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => (isRecord(block) && block.type === 'text' ? String(block.text ?? '') : ''))
    .join('');
}

/**
 * A LangGraph.js graph as a team member: messages in, messages out. Each step streams the graph once
 * with the conversation as its `messages`; massgen's tools reach it as LangChain tools — passed to the
 * export when it is a function that builds the graph, and always in `configurable.massgen_tools` for a
 * compiled graph that binds them itself. The graph's own tools run inside it and show as the agent's own
 * calls; the calls of massgen's tools in its last AI message are the step's tool calls.
 */
export const langGraphBackend: BackendFactory = {
  type: TYPE,
  description: 'A LangGraph.js graph (compiled, or a function of the tools) exported by your module',
  ...externalAgentFactory(),
  create(settings: BackendSettings): Backend {
    const external = settings.external;
    const exported = external?.agent;
    if (!isGraph(exported) && typeof exported !== 'function') {
      throw notAnAgent(
        settings,
        `a LangGraph graph (a compiled graph, or a function (tools) => graph)`,
        'export e.g. const graph = (tools) => createReactAgent({ llm, tools: [...yourTools, ...tools] })',
      );
    }
    const core = loadCore(external?.module ?? process.cwd());
    core.catch(() => {}); // Reported at the first step, as that agent's failure.
    return {
      type: TYPE,
      model: settings.model,
      stream: async function* (request) {
        const lc = await core;
        const tools = toLangChainTools(lc, request.tools);
        const graph = isGraph(exported) ? exported : await (exported as GraphFactory)(tools);
        if (!isGraph(graph))
          throw new ConfigError(`${external?.export ?? 'the export'} did not return a LangGraph graph`);
        yield* streamGraph(graph, lc, tools, request);
      },
    };
  },
};

async function* streamGraph(
  graph: GraphLike,
  core: Core,
  tools: unknown[],
  request: ModelRequest,
): AsyncGenerator<ModelStreamPart> {
  const input = toMessages(core, request.messages);
  const ours = new Set(request.tools.map((t) => t.name));
  const usage = emptyUsage();
  let seen = input.length;
  let lastCalls: { id: string; name: string; arguments: unknown }[] = [];
  try {
    const stream = await graph.stream(
      { messages: input },
      { streamMode: 'values', signal: request.signal, configurable: { massgen_tools: tools } },
    );
    for await (const state of stream) {
      const messages =
        isRecord(state) && Array.isArray(state.messages) ? (state.messages as MessageLike[]) : [];
      for (const message of messages.slice(seen)) {
        const type = typeOf(message);
        if (type === 'ai') {
          usage.inputTokens += message.usage_metadata?.input_tokens ?? 0;
          usage.outputTokens += message.usage_metadata?.output_tokens ?? 0;
          const text = textOf(message.content);
          if (text) yield { type: 'text-delta', text };
          lastCalls = [];
          for (const call of message.tool_calls ?? []) {
            const id = call.id ?? `${call.name}-${seen}`;
            if (ours.has(call.name)) lastCalls.push({ id, name: call.name, arguments: call.args ?? {} });
            else
              yield { type: 'provider-tool-call', callId: id, toolName: call.name, input: call.args ?? {} };
          }
        } else if (type === 'tool' && !ours.has(message.name ?? '')) {
          yield {
            type: 'provider-tool-result',
            callId: message.tool_call_id ?? '',
            toolName: message.name ?? '',
            output: textOf(message.content),
            isError: message.status === 'error',
          };
        }
      }
      seen = Math.max(seen, messages.length);
    }
  } catch (error) {
    if (request.signal.aborted || error instanceof ConfigError) throw error;
    throw new ProviderError(TYPE, `${TYPE}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
      retryable: false,
    });
  }
  for (const call of lastCalls) yield { type: 'tool-call', call };
  yield { type: 'finish', finishReason: lastCalls.length > 0 ? 'tool-calls' : 'stop', usage };
}
