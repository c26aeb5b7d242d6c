import type { ServerResponse } from 'node:http';
import type { FakeRequestView, WireDialect } from './dialect.js';
import { openAIChatMedia } from './media-parts.js';
import {
  chunksOf,
  estimateUsage,
  nextResponseIndex,
  splitInto,
  SseWriter,
  toolCallsOf,
  type ScriptedReply,
} from './script.js';

/** The parts of an OpenAI chat-completion request body tests usually inspect; everything else is kept too. */
export interface FakeChatRequestBody {
  model?: string;
  messages?: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  tool_choice?: unknown;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  temperature?: number;
  max_tokens?: number;
  [key: string]: unknown;
}

/** OpenAI's error body shape. */
export function openAIErrorBody(
  message: string,
  type: string,
): { error: { message: string; type: string; code: null } } {
  return { error: { message, type, code: null } };
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part) => (part as { text?: string }).text ?? '').join('')
      : '';

/** The workflow `vote` tool, also as a harness sees it through massgen's MCP server (`mcp__massgen__vote`). */
export const isVoteTool = (name: string): boolean => /(^|_)vote$/.test(name);

/** Enum of `vote.agent_id` in a JSON schema, if any (shared by the dialects). */
export function votableIdsOf(parameters: unknown): string[] {
  const agentId = (parameters as { properties?: { agent_id?: { enum?: unknown } } } | undefined)?.properties
    ?.agent_id;
  return Array.isArray(agentId?.enum) ? (agentId.enum as string[]) : [];
}

function meta(body: FakeChatRequestBody) {
  const index = nextResponseIndex();
  const created = Math.floor(Date.now() / 1000);
  const model = typeof body.model === 'string' ? body.model : 'fake-model';
  return { index, envelope: (object: string) => ({ id: `chatcmpl-fake-${index}`, object, created, model }) };
}

function finishReasonOf(reply: ScriptedReply): string {
  if ('toolCalls' in reply && reply.toolCalls.length > 0) return 'tool_calls';
  return 'finishReason' in reply && reply.finishReason !== undefined ? reply.finishReason : 'stop';
}

function usageOf(body: FakeChatRequestBody, reply: ScriptedReply) {
  const u = estimateUsage(JSON.stringify(body.messages ?? []).length, reply);
  return {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    prompt_tokens_details: { cached_tokens: u.cachedTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}

/** OpenAI Chat Completions: `POST /v1/chat/completions`, `chat.completion.chunk` SSE ending with `[DONE]`. */
export const openAIChatDialect: WireDialect = {
  name: 'openai-chat',
  matches: (method, path) => method === 'POST' && path.endsWith('/chat/completions'),

  view(raw): FakeRequestView {
    const body = raw as FakeChatRequestBody;
    const messages = body.messages ?? [];
    const tools = body.tools ?? [];
    return {
      dialect: 'openai-chat',
      model: body.model ?? '',
      system: messages
        .filter((m) => m.role === 'system' || m.role === 'developer')
        .map((m) => textOf(m.content))
        .join('\n'),
      toolNames: tools.map((t) => t.function.name),
      votableIds: votableIdsOf(tools.find((t) => isVoteTool(t.function.name))?.function.parameters),
      text: messages
        .filter((m) => m.role !== 'system' && m.role !== 'developer')
        .map((m) => textOf(m.content))
        .join('\n'),
      media: openAIChatMedia(messages),
      stream: body.stream === true,
    };
  },

  async writeStream(res: ServerResponse, raw, reply) {
    const body = raw as FakeChatRequestBody;
    const m = meta(body);
    const sse = new SseWriter(res, reply);
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
      ...m.envelope('chat.completion.chunk'),
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
    if (!(await sse.send(chunk({ role: 'assistant', content: '' })))) return;
    const { reasoning, text } = chunksOf(reply);
    for (const piece of reasoning) if (!(await sse.sendContent(chunk({ reasoning_content: piece })))) return;
    for (const piece of text) if (!(await sse.sendContent(chunk({ content: piece })))) return;
    for (const [index, call] of toolCallsOf(reply, m.index).entries()) {
      const start = { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
      if (!(await sse.sendContent(chunk({ tool_calls: [start] })))) return;
      for (const fragment of splitInto(call.arguments, 3)) {
        if (!(await sse.sendContent(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }))))
          return;
      }
    }
    if (!(await sse.send(chunk({}, finishReasonOf(reply))))) return;
    if (body.stream_options?.include_usage === true) {
      if (
        !(await sse.send({
          ...m.envelope('chat.completion.chunk'),
          choices: [],
          usage: usageOf(body, reply),
        }))
      )
        return;
    }
    sse.end('data: [DONE]\n\n');
  },

  json(raw, reply) {
    const body = raw as FakeChatRequestBody;
    const m = meta(body);
    const calls = toolCallsOf(reply, m.index);
    const text = reply.text ?? '';
    return {
      ...m.envelope('chat.completion'),
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: calls.length > 0 && text === '' ? null : text,
            ...(reply.reasoning !== undefined ? { reasoning_content: reply.reasoning } : {}),
            ...(calls.length > 0
              ? {
                  tool_calls: calls.map((c) => ({
                    id: c.id,
                    type: 'function',
                    function: { name: c.name, arguments: c.arguments },
                  })),
                }
              : {}),
          },
          finish_reason: finishReasonOf(reply),
        },
      ],
      usage: usageOf(body, reply),
    };
  },

  errorBody: (status, message) =>
    openAIErrorBody(message, status >= 500 ? 'server_error' : 'invalid_request_error'),
};
