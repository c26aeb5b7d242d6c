import type { ServerResponse } from 'node:http';
import type { FakeRequestView, WireDialect } from './dialect.js';
import { anthropicMedia } from './media-parts.js';
import { isVoteTool, votableIdsOf } from './openai-chat.js';
import {
  chunksOf,
  estimateUsage,
  nextResponseIndex,
  splitInto,
  SseWriter,
  toolCallsOf,
  type FakeToolCall,
  type ScriptedReply,
} from './script.js';

/** One Anthropic content block (request or response); everything else is kept too. */
export interface FakeAnthropicBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
  [key: string]: unknown;
}

/** The parts of an Anthropic Messages request body tests usually inspect; everything else is kept too. */
export interface FakeMessagesRequestBody {
  model?: string;
  system?: string | FakeAnthropicBlock[];
  messages?: Array<{ role: string; content: string | FakeAnthropicBlock[] }>;
  /** Custom tools carry `name` + `input_schema`; server tools (web search, code execution) a versioned `type`. */
  tools?: Array<{
    name: string;
    type?: string;
    description?: string;
    input_schema?: unknown;
    [key: string]: unknown;
  }>;
  tool_choice?: unknown;
  max_tokens?: number;
  thinking?: { type: string; budget_tokens?: number };
  temperature?: number;
  stream?: boolean;
  [key: string]: unknown;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** Anthropic's documented error `type` for an HTTP status (`api_error` for other 5xx). */
export function anthropicErrorType(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** Anthropic's error body: `{"type":"error","error":{"type":…,"message":…}}`. */
export function anthropicErrorBody(
  message: string,
  type: string,
): { type: 'error'; error: { type: string; message: string } } {
  return { type: 'error', error: { type, message } };
}

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as FakeAnthropicBlock[])
    .map((block) => (block.type === 'tool_result' ? textOf(block.content) : (block.text ?? '')))
    .filter((s) => s !== '')
    .join('\n');
};

/** A content block plus how to stream it. */
type Planned =
  | { kind: 'thinking'; text: string; pieces: string[]; signature: string }
  | { kind: 'search'; id: string; query: string; result: FakeAnthropicBlock }
  | { kind: 'text'; text: string; pieces: string[] }
  | { kind: 'tool_use'; id: string; name: string; args: string };

const isServerWebSearch = (tool: { type?: string }) => tool.type?.startsWith('web_search_') === true;

/**
 * The reply's content blocks in Claude's order: thinking, server-side web searches, text, tool uses.
 * A `toolCalls` entry named `web_search` (arguments `{ query, sources?: string[], errorCode? }`, the
 * same convention as the OpenAI Responses dialect) becomes a `server_tool_use` + `web_search_tool_result`
 * pair when the request offered Anthropic's web search tool; otherwise it stays a plain `tool_use`.
 */
function plan(body: FakeMessagesRequestBody, reply: ScriptedReply, n: number): Planned[] {
  const searchOffered = (body.tools ?? []).some(isServerWebSearch);
  const scripted = 'toolCalls' in reply ? reply.toolCalls : [];
  const calls = toolCallsOf(reply, n).map((call, i) => ({ ...call, raw: scripted[i]?.arguments }));
  const { reasoning, text } = chunksOf(reply);
  const items: Planned[] = [];
  if (reply.reasoning !== undefined && reply.reasoning !== '') {
    items.push({ kind: 'thinking', text: reply.reasoning, pieces: reasoning, signature: `fake-sig-${n}` });
  }
  const searches = calls.filter((c) => searchOffered && c.name === 'web_search');
  for (const [i, call] of searches.entries()) {
    const args = parseArguments(call.raw);
    const id = scripted[calls.indexOf(call)]?.id ?? `srvtoolu_fake_${n}_${i}`;
    items.push({ kind: 'search', id, query: String(args.query ?? ''), result: searchResult(id, args) });
  }
  const functions = calls.filter((c) => !searches.includes(c));
  if ((reply.text ?? '') !== '' || functions.length === 0) {
    items.push({ kind: 'text', text: reply.text ?? '', pieces: text });
  }
  for (const call of functions)
    items.push({ kind: 'tool_use', id: call.id, name: call.name, args: call.arguments });
  return items;
}

function searchResult(toolUseId: string, args: Record<string, unknown>): FakeAnthropicBlock {
  const content =
    typeof args.errorCode === 'string'
      ? { type: 'web_search_tool_result_error', error_code: args.errorCode }
      : (Array.isArray(args.sources) ? (args.sources as string[]) : []).map((url, i) => ({
          type: 'web_search_result',
          url,
          title: `Result ${i + 1}`,
          encrypted_content: `fake-encrypted-${i}`,
          page_age: null,
        }));
  return { type: 'web_search_tool_result', tool_use_id: toolUseId, content };
}

function parseArguments(raw: FakeToolCall['arguments'] | undefined): Record<string, unknown> {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Scripted finish reasons may be vendor-neutral (`stop`, `length`); Anthropic names them differently. */
function stopReasonOf(reply: ScriptedReply, items: readonly Planned[]): string {
  const scripted = 'finishReason' in reply ? reply.finishReason : undefined;
  if (scripted === 'stop') return 'end_turn';
  if (scripted === 'length') return 'max_tokens';
  if (scripted !== undefined) return scripted;
  return items.some((p) => p.kind === 'tool_use') ? 'tool_use' : 'end_turn';
}

/** Anthropic counts `input_tokens` without cache reads; the script's `promptTokens` includes them. */
function usageOf(body: FakeMessagesRequestBody, reply: ScriptedReply) {
  const u = estimateUsage(JSON.stringify([body.system ?? '', body.messages ?? []]).length, reply);
  return {
    input_tokens: Math.max(0, u.promptTokens - u.cachedTokens),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: u.cachedTokens,
    output_tokens: u.completionTokens,
  };
}

/** The finished block as it appears in a non-streaming `content` array. */
function blockOf(planned: Planned): FakeAnthropicBlock {
  switch (planned.kind) {
    case 'thinking':
      return { type: 'thinking', thinking: planned.text, signature: planned.signature };
    case 'search':
      return planned.result;
    case 'text':
      return { type: 'text', text: planned.text };
    case 'tool_use': {
      // Real responses always carry an object; unparseable scripted arguments are kept raw for error tests.
      let input: unknown;
      try {
        input = JSON.parse(planned.args);
      } catch {
        input = planned.args;
      }
      return { type: 'tool_use', id: planned.id, name: planned.name, input };
    }
  }
}

type Emitter = (type: string, data: Record<string, unknown>, content?: boolean) => Promise<boolean>;

/** Streams one planned block as `content_block_start` / `_delta`… / `_stop`; false once the client is gone. */
async function streamBlock(emit: Emitter, planned: Planned, index: number): Promise<boolean> {
  const start = (block: FakeAnthropicBlock) => emit('content_block_start', { index, content_block: block });
  const delta = (d: Record<string, unknown>) => emit('content_block_delta', { index, delta: d }, true);
  const stop = () => emit('content_block_stop', { index });
  const json = async (id: string, name: string, type: string, args: string) => {
    if (!(await start({ type, id, name, input: {} }))) return false;
    for (const fragment of splitInto(args, 3))
      if (!(await delta({ type: 'input_json_delta', partial_json: fragment }))) return false;
    return stop();
  };
  switch (planned.kind) {
    case 'thinking':
      if (!(await start({ type: 'thinking', thinking: '' }))) return false;
      for (const piece of planned.pieces)
        if (!(await delta({ type: 'thinking_delta', thinking: piece }))) return false;
      // The signature arrives last, just before the block stops.
      if (!(await delta({ type: 'signature_delta', signature: planned.signature }))) return false;
      return stop();
    case 'search':
      if (
        !(await json(planned.id, 'web_search', 'server_tool_use', JSON.stringify({ query: planned.query })))
      )
        return false;
      return (
        (await emit('content_block_start', { index: index + 1, content_block: planned.result })) &&
        emit('content_block_stop', { index: index + 1 })
      );
    case 'text':
      if (!(await start({ type: 'text', text: '' }))) return false;
      for (const piece of planned.pieces)
        if (!(await delta({ type: 'text_delta', text: piece }))) return false;
      return stop();
    case 'tool_use':
      return json(planned.id, planned.name, 'tool_use', planned.args);
  }
}

/**
 * Anthropic Messages API: `POST …/v1/messages`. Streams the documented events, each as
 * `event: <type>` + `data: {"type": <type>, …}`: `message_start` (empty content, input usage with cache
 * reads), `ping`, one `content_block_start` / `content_block_delta`… / `content_block_stop` run per block
 * (`thinking` with `thinking_delta`s then one `signature_delta`; `server_tool_use` + `web_search_tool_result`;
 * `text` with `text_delta`s; `tool_use` with `input_json_delta` fragments), `message_delta` (stop reason,
 * output tokens) and `message_stop`. Scripted `reasoningTokens` are not rendered: Anthropic does not report them.
 */
export const anthropicMessagesDialect: WireDialect = {
  name: 'anthropic-messages',
  matches: (method, path) => method === 'POST' && path.endsWith('/v1/messages'),

  view(raw): FakeRequestView {
    const body = raw as FakeMessagesRequestBody;
    const custom = (body.tools ?? []).filter((t) => t.input_schema !== undefined);
    return {
      dialect: 'anthropic-messages',
      model: body.model ?? '',
      system: textOf(body.system),
      toolNames: custom.map((t) => t.name),
      votableIds: votableIdsOf(custom.find((t) => isVoteTool(t.name))?.input_schema),
      text: (body.messages ?? [])
        .map((m) => textOf(m.content))
        .filter((s) => s !== '')
        .join('\n'),
      media: anthropicMedia(body.messages ?? []),
      stream: body.stream === true,
    };
  },

  async writeStream(res: ServerResponse, raw, reply) {
    const body = raw as FakeMessagesRequestBody;
    const n = nextResponseIndex();
    const sse = new SseWriter(res, reply);
    const emit: Emitter = (type, data, content = false) =>
      content ? sse.sendContent({ type, ...data }, type) : sse.send({ type, ...data }, type);
    const items = plan(body, reply, n);
    const { output_tokens, ...inputUsage } = usageOf(body, reply);
    const message = {
      id: `msg_fake_${n}`,
      type: 'message',
      role: 'assistant',
      model: body.model ?? 'fake-model',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      // Anthropic reports a token or so of output up front; the real count comes with `message_delta`.
      usage: { ...inputUsage, output_tokens: 1 },
    };
    if (!(await emit('message_start', { message }))) return;
    if (!(await emit('ping', {}))) return;
    let index = 0;
    for (const planned of items) {
      if (!(await streamBlock(emit, planned, index))) return;
      index += planned.kind === 'search' ? 2 : 1;
    }
    const delta = { stop_reason: stopReasonOf(reply, items), stop_sequence: null };
    if (!(await emit('message_delta', { delta, usage: { output_tokens } }))) return;
    if (!(await emit('message_stop', {}))) return;
    sse.end();
  },

  json(raw, reply) {
    const body = raw as FakeMessagesRequestBody;
    const n = nextResponseIndex();
    const items = plan(body, reply, n);
    return {
      id: `msg_fake_${n}`,
      type: 'message',
      role: 'assistant',
      model: body.model ?? 'fake-model',
      content: items.flatMap((p) =>
        p.kind === 'search'
          ? [{ type: 'server_tool_use', id: p.id, name: 'web_search', input: { query: p.query } }, p.result]
          : [blockOf(p)],
      ),
      stop_reason: stopReasonOf(reply, items),
      stop_sequence: null,
      usage: usageOf(body, reply),
    };
  },

  errorBody: (status, message) => anthropicErrorBody(message, anthropicErrorType(status)),
};
