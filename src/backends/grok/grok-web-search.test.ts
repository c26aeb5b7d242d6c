import { describe, expect, it } from 'vitest';
import type { FakeRequestView, WireDialect } from '../../testing/fake-server/dialect.js';
import { nextResponseIndex, SseWriter, toolCallsOf } from '../../testing/fake-server/script.js';
import type { BackendSettings, ModelRequest } from '../../types/backend.js';
import { request as baseRequest, collect, lookupTool, useDialectServer } from '../backend.test-support.js';
import { grokBackend } from './index.js';

interface ResponsesBody {
  model?: string;
  input?: Array<{ role?: string; type?: string; content?: unknown }>;
  tools?: Array<{ type: string; name?: string }>;
  reasoning?: { effort?: string };
  stream?: boolean;
  [key: string]: unknown;
}

/** A scripted call named `web_search` is rendered as xAI's server-side `web_search_call` item. */
const SEARCH_TOOL = 'web_search';

/**
 * A minimal xAI Responses API (`POST /v1/responses`) stream: an optional server-side web search, the
 * text as `output_text` deltas, function calls as whole `function_call` items, and usage on
 * `response.completed`.
 */
const xaiResponsesDialect: WireDialect = {
  name: 'xai-responses',
  matches: (method, path) => method === 'POST' && path.endsWith('/responses'),
  view(raw): FakeRequestView {
    const body = raw as ResponsesBody;
    return {
      dialect: 'xai-responses',
      model: body.model ?? '',
      system: '',
      toolNames: (body.tools ?? []).flatMap((t) => (t.type === 'function' && t.name ? [t.name] : [])),
      votableIds: [],
      text: JSON.stringify(body.input ?? []),
      media: [],
      stream: body.stream === true,
    };
  },
  async writeStream(res, raw, reply) {
    const body = raw as ResponsesBody;
    const index = nextResponseIndex();
    const base = { id: `resp_${index}`, object: 'response', created_at: 0, model: body.model, output: [] };
    const sse = new SseWriter(res, reply);
    let output = 0;
    if (!(await sse.send({ type: 'response.created', response: { ...base, status: 'in_progress' } }))) return;
    const calls = toolCallsOf(reply, index);
    for (const call of calls.filter((c) => c.name === SEARCH_TOOL)) {
      const item = {
        type: 'web_search_call',
        id: `ws_${index}`,
        name: 'web_search',
        arguments: call.arguments,
      };
      const added = {
        type: 'response.output_item.added',
        output_index: output,
        item: { ...item, status: 'in_progress' },
      };
      if (!(await sse.sendContent(added))) return;
      const action = {
        type: 'search',
        query: JSON.parse(call.arguments).query,
        sources: [{ type: 'url', url: 'https://x.ai/news' }],
      };
      const done = {
        type: 'response.output_item.done',
        output_index: output,
        item: { ...item, status: 'completed', action },
      };
      if (!(await sse.sendContent(done))) return;
      output += 1;
    }
    if (reply.text !== undefined) {
      const message = {
        type: 'message',
        id: `msg_${index}`,
        role: 'assistant',
        status: 'in_progress',
        content: [],
      };
      if (!(await sse.send({ type: 'response.output_item.added', output_index: output, item: message })))
        return;
      for (const delta of reply.text.match(/.{1,6}/gs) ?? []) {
        const event = {
          type: 'response.output_text.delta',
          item_id: message.id,
          output_index: output,
          content_index: 0,
          delta,
        };
        if (!(await sse.sendContent(event))) return;
      }
      output += 1;
    }
    for (const call of calls.filter((c) => c.name !== SEARCH_TOOL)) {
      const item = {
        type: 'function_call',
        id: `fc_${call.id}`,
        call_id: call.id,
        name: call.name,
        arguments: call.arguments,
      };
      if (
        !(await sse.send({
          type: 'response.output_item.added',
          output_index: output,
          item: { ...item, arguments: '' },
        }))
      )
        return;
      if (!(await sse.sendContent({ type: 'response.output_item.done', output_index: output, item }))) return;
      output += 1;
    }
    const usage = { input_tokens: 40, output_tokens: 12, output_tokens_details: { reasoning_tokens: 2 } };
    await sse.send({ type: 'response.completed', response: { ...base, status: 'completed', usage } });
    sse.end();
  },
  json: () => {
    throw new Error('the xAI responses fake only streams');
  },
  errorBody: (_status, message) => ({ code: 'fake', error: message }),
};

const fake = useDialectServer<ResponsesBody>([xaiResponsesDialect]);

function settings(overrides: Partial<BackendSettings> = {}): BackendSettings {
  return {
    type: 'grok',
    model: 'grok-4.3',
    baseUrl: `${fake.server.origin}/v1`,
    apiKey: 'xai-test-key',
    providerOptions: {},
    features: { webSearch: true },
    ...overrides,
  };
}

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest =>
  baseRequest({
    messages: [
      { role: 'system', content: 'You are agent 1.' },
      { role: 'user', content: 'What did xAI ship today?' },
    ],
    ...overrides,
  });

describe('grok web search (xAI Responses API agent tools)', () => {
  it('offers web_search and x_search on /responses, never the retired search_parameters', async () => {
    fake.server.enqueue({ text: 'ok' });
    await collect(grokBackend.create(settings()).stream(request({ tools: [lookupTool] })));
    const recorded = fake.server.requests[0];
    expect(recorded?.path).toBe('/v1/responses');
    expect(recorded?.hasAuthorization).toBe(true);
    expect(recorded?.body?.model).toBe('grok-4.3');
    expect(recorded?.body?.tools?.map((t) => t.type)).toEqual(['function', 'web_search', 'x_search']);
    expect(recorded?.body?.tools?.[0]).toMatchObject({ type: 'function', name: 'lookup' });
    expect(JSON.stringify(recorded?.body)).not.toContain('search_parameters');
  });

  it('streams the search as provider tool parts, then text, a function call and usage', async () => {
    fake.server.enqueue({
      text: 'Grok 4.3 shipped.',
      toolCalls: [
        { name: SEARCH_TOOL, arguments: { query: 'xAI news today' } },
        { name: 'lookup', arguments: { query: 'grok 4.3' }, id: 'call_lookup' },
      ],
    });
    const parts = await collect(grokBackend.create(settings()).stream(request({ tools: [lookupTool] })));
    const kinds = parts.map((p) => p.type);
    expect(kinds.indexOf('provider-tool-call')).toBeLessThan(kinds.indexOf('provider-tool-result'));
    expect(kinds.indexOf('provider-tool-result')).toBeLessThan(kinds.indexOf('text-delta'));
    expect(parts.find((p) => p.type === 'provider-tool-call')).toMatchObject({ toolName: 'web_search' });
    expect(parts.find((p) => p.type === 'provider-tool-result')).toMatchObject({
      toolName: 'web_search',
      isError: false,
      output: {
        action: { type: 'search', query: 'xAI news today' },
        sources: [{ type: 'url', url: 'https://x.ai/news' }],
      },
    });
    expect(parts.flatMap((p) => (p.type === 'text-delta' ? [p.text] : [])).join('')).toBe(
      'Grok 4.3 shipped.',
    );
    expect(parts.filter((p) => p.type === 'tool-call')).toEqual([
      { type: 'tool-call', call: { id: 'call_lookup', name: 'lookup', arguments: { query: 'grok 4.3' } } },
    ]);
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'tool-calls',
      usage: { inputTokens: 40, outputTokens: 12, reasoningTokens: 2, cachedInputTokens: 0 },
    });
  });

  it('sends the reasoning effort as reasoning.effort', async () => {
    fake.server.enqueue({ text: 'ok' });
    await collect(
      grokBackend
        .create(settings({ features: { webSearch: true, reasoning: { effort: 'high' } } }))
        .stream(request()),
    );
    expect(fake.server.requests[0]?.body?.reasoning).toEqual({ effort: 'high' });
  });
});
