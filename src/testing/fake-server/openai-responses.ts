import type { ServerResponse } from 'node:http';
import type { FakeRequestView, WireDialect } from './dialect.js';
import { openAIResponsesMedia } from './media-parts.js';
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

/** One item of a Responses `input` array (messages, function calls, their outputs…); everything else is kept too. */
export interface FakeResponsesInputItem {
  type?: string;
  role?: string;
  content?: unknown;
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: unknown;
  [key: string]: unknown;
}

/** The parts of an OpenAI Responses request body tests usually inspect; everything else is kept too. */
export interface FakeResponsesRequestBody {
  model?: string;
  instructions?: string;
  input?: string | FakeResponsesInputItem[];
  /** Function tools carry `name`/`parameters` at the top level; built-in tools only a `type`. */
  tools?: Array<{
    type: string;
    name?: string;
    description?: string;
    parameters?: unknown;
    [key: string]: unknown;
  }>;
  tool_choice?: unknown;
  stream?: boolean;
  temperature?: number;
  max_output_tokens?: number;
  reasoning?: { effort?: string; summary?: string };
  text?: { verbosity?: string; format?: unknown };
  include?: string[];
  store?: boolean;
  [key: string]: unknown;
}

/** Tool types of OpenAI's built-in web search; a scripted call of this name becomes a `web_search_call` item. */
const WEB_SEARCH_TOOLS = new Set(['web_search', 'web_search_preview']);

/**
 * A scripted provider-executed web search. When the request offered a `web_search` (or
 * `web_search_preview`) tool, a `toolCalls` entry named `web_search` is rendered as a `web_search_call`
 * output item (searched by "the provider", not a function call) whose `action` carries the query and
 * sources; `status` other than `completed` (e.g. `failed`) scripts a failed search. Without such a
 * tool it stays an ordinary function call.
 */
export function fakeWebSearch(
  query: string,
  options: { sources?: readonly string[]; id?: string; status?: string } = {},
): FakeToolCall {
  const { sources = [], id, status = 'completed' } = options;
  return {
    name: 'web_search',
    arguments: { query, sources: [...sources], status },
    ...(id === undefined ? {} : { id }),
  };
}

/** OpenAI's error body: `{ error: { message, type, param, code } }`. */
export function openAIResponsesErrorBody(status: number, message: string) {
  const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
  const code = status === 401 ? 'invalid_api_key' : status === 429 ? 'rate_limit_exceeded' : null;
  return { error: { message, type, param: null, code } };
}

const textOfContent = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part) => (part as { text?: unknown }).text ?? '').join('')
      : '';

const isSystem = (item: FakeResponsesInputItem) => item.role === 'system' || item.role === 'developer';

function inputItems(body: FakeResponsesRequestBody): FakeResponsesInputItem[] {
  if (typeof body.input === 'string') return [{ role: 'user', content: body.input }];
  return body.input ?? [];
}

/** One output item plus how to stream it. */
type Planned =
  | { kind: 'reasoning'; item: Record<string, unknown>; text: string; pieces: string[] }
  | { kind: 'web_search'; item: Record<string, unknown> }
  | { kind: 'message'; item: Record<string, unknown>; text: string; pieces: string[] }
  | { kind: 'function_call'; item: Record<string, unknown>; args: string };

/**
 * Function tools grouped under a `namespace` tool (how Codex offers an MCP server's tools), named
 * `<namespace>__<tool>` as the script calls them.
 */
function namespacedFunctions(body: FakeResponsesRequestBody) {
  return (body.tools ?? []).flatMap((group) =>
    group.type === 'namespace' && Array.isArray(group.tools)
      ? (group.tools as { name?: string; parameters?: unknown }[]).map((t) => ({
          name: `${String(group.name)}__${String(t.name)}`,
          namespace: String(group.name),
          tool: String(t.name),
          parameters: t.parameters,
        }))
      : [],
  );
}

/** The reply's output items in the order OpenAI emits them: reasoning, searches, the message, function calls. */
function plan(body: FakeResponsesRequestBody, reply: ScriptedReply, n: number): Planned[] {
  const offersWebSearch = (body.tools ?? []).some((t) => WEB_SEARCH_TOOLS.has(t.type));
  const { reasoning, text } = chunksOf(reply);
  const scripted = 'toolCalls' in reply ? reply.toolCalls : [];
  const calls = toolCallsOf(reply, n).map((call, i) => ({
    ...call,
    raw: scripted[i]?.arguments,
    scriptedId: scripted[i]?.id,
  }));
  const searches = calls.filter((c) => offersWebSearch && WEB_SEARCH_TOOLS.has(c.name));
  const functions = calls.filter((c) => !searches.includes(c));
  const items: Planned[] = [];
  if (reply.reasoning !== undefined && reply.reasoning !== '') {
    const summary = [{ type: 'summary_text', text: reply.reasoning }];
    items.push({
      kind: 'reasoning',
      item: { id: `rs_fake_${n}`, type: 'reasoning', summary },
      text: reply.reasoning,
      pieces: reasoning,
    });
  }
  for (const [i, call] of searches.entries()) {
    const args = parseArguments(call.raw);
    const query = typeof args.query === 'string' ? args.query : '';
    const sources = Array.isArray(args.sources) ? (args.sources as string[]) : [];
    items.push({
      kind: 'web_search',
      item: {
        id: call.scriptedId ?? `ws_fake_${n}_${i}`,
        type: 'web_search_call',
        status: typeof args.status === 'string' ? args.status : 'completed',
        action: { type: 'search', query, sources: sources.map((url) => ({ type: 'url', url })) },
      },
    });
  }
  const messageText = reply.text ?? '';
  if (messageText !== '' || calls.length === 0) {
    const content = [{ type: 'output_text', text: messageText, annotations: [], logprobs: [] }];
    items.push({
      kind: 'message',
      item: { id: `msg_fake_${n}`, type: 'message', status: 'completed', role: 'assistant', content },
      text: messageText,
      pieces: text,
    });
  }
  const namespaced = namespacedFunctions(body);
  for (const [i, call] of functions.entries()) {
    // A tool offered inside a namespace (Codex's MCP servers) is called by its own name in that namespace.
    const inNamespace = namespaced.find((f) => f.name === call.name);
    items.push({
      kind: 'function_call',
      item: {
        id: `fc_fake_${n}_${i}`,
        type: 'function_call',
        status: 'completed',
        call_id: call.id,
        ...(inNamespace ? { name: inNamespace.tool, namespace: inNamespace.namespace } : { name: call.name }),
        arguments: call.arguments,
      },
      args: call.arguments,
    });
  }
  return items;
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

/** `response.completed`, or `response.incomplete` when the script names another finish reason. */
function statusOf(reply: ScriptedReply): { status: string; incomplete: { reason: string } | null } {
  const reason = 'finishReason' in reply ? reply.finishReason : undefined;
  if (reason === undefined || reason === 'stop' || reason === 'completed') {
    return { status: 'completed', incomplete: null };
  }
  return { status: 'incomplete', incomplete: { reason: reason === 'length' ? 'max_output_tokens' : reason } };
}

function usageOf(body: FakeResponsesRequestBody, reply: ScriptedReply) {
  const u = estimateUsage(JSON.stringify(body.input ?? '').length + (body.instructions ?? '').length, reply);
  return {
    input_tokens: u.promptTokens,
    input_tokens_details: { cached_tokens: u.cachedTokens },
    output_tokens: u.completionTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
    total_tokens: u.promptTokens + u.completionTokens,
  };
}

/** The `response` object; `output` and `usage` are filled only once it is finished, as OpenAI does. */
function responseObject(body: FakeResponsesRequestBody, n: number, created: number) {
  return {
    id: `resp_fake_${n}`,
    object: 'response',
    created_at: created,
    status: 'in_progress',
    error: null,
    incomplete_details: null as { reason: string } | null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: typeof body.model === 'string' ? body.model : 'fake-model',
    output: [] as unknown[],
    parallel_tool_calls: true,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    usage: null as ReturnType<typeof usageOf> | null,
  };
}

function finished(body: FakeResponsesRequestBody, reply: ScriptedReply, n: number, created: number) {
  const { status, incomplete } = statusOf(reply);
  return {
    ...responseObject(body, n, created),
    status,
    incomplete_details: incomplete,
    output: plan(body, reply, n).map((p) => p.item),
    usage: usageOf(body, reply),
  };
}

/** One SSE event: its `type`, its payload, and whether it carries model output (counts as a chunk). */
type WireEvent = [type: string, data: Record<string, unknown>, content?: boolean];

/** The events of one output item: `added`, its deltas and their `done`s, then the item's `done`. */
function itemEvents(planned: Planned, outputIndex: number): WireEvent[] {
  const { item } = planned;
  const base = { item_id: item.id, output_index: outputIndex };
  const added = (extra: Record<string, unknown>): WireEvent => [
    'response.output_item.added',
    { output_index: outputIndex, item: { ...item, ...extra } },
  ];
  const done: WireEvent = ['response.output_item.done', { output_index: outputIndex, item }];
  switch (planned.kind) {
    case 'reasoning': {
      const part = { ...base, summary_index: 0 };
      const summary = (text: string) => ({ ...part, part: { type: 'summary_text', text } });
      return [
        added({ summary: [] }),
        ['response.reasoning_summary_part.added', summary('')],
        ...planned.pieces.map((delta): WireEvent => [
          'response.reasoning_summary_text.delta',
          { ...part, delta },
          true,
        ]),
        ['response.reasoning_summary_text.done', { ...part, text: planned.text }],
        ['response.reasoning_summary_part.done', summary(planned.text)],
        done,
      ];
    }
    case 'web_search':
      return [
        added({ status: 'in_progress' }),
        ['response.web_search_call.in_progress', base],
        ['response.web_search_call.searching', base],
        ['response.web_search_call.completed', base, true],
        done,
      ];
    case 'message': {
      const part = { ...base, content_index: 0 };
      const textPart = (text: string) => ({ ...part, part: { type: 'output_text', text, annotations: [] } });
      return [
        added({ status: 'in_progress', content: [] }),
        ['response.content_part.added', textPart('')],
        ...planned.pieces.map((delta): WireEvent => [
          'response.output_text.delta',
          { ...part, delta, logprobs: [] },
          true,
        ]),
        ['response.output_text.done', { ...part, text: planned.text, logprobs: [] }],
        ['response.content_part.done', textPart(planned.text)],
        done,
      ];
    }
    case 'function_call':
      return [
        added({ status: 'in_progress', arguments: '' }),
        ...splitInto(planned.args, 3).map((delta): WireEvent => [
          'response.function_call_arguments.delta',
          { ...base, delta },
          true,
        ]),
        // Live events omit `name` here although the reference lists it; the SDK does not need it.
        ['response.function_call_arguments.done', { ...base, arguments: planned.args }],
        done,
      ];
  }
}

/**
 * OpenAI Responses API: `POST …/responses` — OpenAI's `/v1/responses` and Azure's
 * `/openai/v1/responses` or `/openai/deployments/{deployment}/responses`. Streams the documented
 * semantic events (`event: <type>` + `data: {"type", "sequence_number", …}`), ending with
 * `response.completed` (or `response.incomplete`) carrying the full response and its `usage`.
 */
export const openAIResponsesDialect: WireDialect = {
  name: 'openai-responses',
  matches: (method, path) => method === 'POST' && path.endsWith('/responses'),

  view(raw, path): FakeRequestView {
    const body = raw as FakeResponsesRequestBody;
    const items = inputItems(body);
    const functions = [
      ...(body.tools ?? []).filter((t) => t.type === 'function' && typeof t.name === 'string'),
      ...namespacedFunctions(body),
    ];
    const deployment = /\/deployments\/([^/]+)\/responses$/.exec(path)?.[1];
    return {
      dialect: 'openai-responses',
      model: body.model ?? (deployment === undefined ? '' : decodeURIComponent(deployment)),
      system: [body.instructions ?? '', ...items.filter(isSystem).map((m) => textOfContent(m.content))]
        .filter((s) => s !== '')
        .join('\n'),
      toolNames: functions.map((t) => t.name as string),
      votableIds: votableIdsOf(functions.find((t) => isVoteTool(t.name ?? ''))?.parameters),
      text: items
        .filter((m) => !isSystem(m))
        .map((m) => (m.type === 'function_call_output' ? textOfContent(m.output) : textOfContent(m.content)))
        .filter((s) => s !== '')
        .join('\n'),
      media: openAIResponsesMedia(items),
      stream: body.stream === true,
    };
  },

  async writeStream(res: ServerResponse, raw, reply) {
    const body = raw as FakeResponsesRequestBody;
    const n = nextResponseIndex();
    const created = Math.floor(Date.now() / 1000);
    const sse = new SseWriter(res, reply);
    let sequence = 0;
    const emit = ([type, data, content = false]: WireEvent): Promise<boolean> => {
      const event = { type, sequence_number: sequence++, ...data };
      return content ? sse.sendContent(event, type) : sse.send(event, type);
    };
    const inProgress = responseObject(body, n, created);
    const events: WireEvent[] = [
      ['response.created', { response: inProgress }],
      ['response.in_progress', { response: inProgress }],
      ...plan(body, reply, n).flatMap((planned, index) => itemEvents(planned, index)),
    ];
    for (const event of events) if (!(await emit(event))) return;
    const response = finished(body, reply, n, created);
    const last = response.status === 'completed' ? 'response.completed' : 'response.incomplete';
    if (!(await emit([last, { response }]))) return;
    // Unlike Chat Completions, the Responses stream has no `[DONE]` sentinel.
    sse.end();
  },

  json: (raw, reply) =>
    finished(raw as FakeResponsesRequestBody, reply, nextResponseIndex(), Math.floor(Date.now() / 1000)),

  errorBody: openAIResponsesErrorBody,
};
