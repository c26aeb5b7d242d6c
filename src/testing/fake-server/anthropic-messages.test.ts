import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  anthropicErrorBody,
  anthropicErrorType,
  anthropicMessagesDialect,
  type FakeMessagesRequestBody,
} from './anthropic-messages.js';
import type { ScriptedReply } from './script.js';
import { startFakeServer, type FakeServer } from './server.js';

let server: FakeServer<FakeMessagesRequestBody>;

beforeAll(async () => {
  server = await startFakeServer<FakeMessagesRequestBody>([anthropicMessagesDialect]);
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
});

const voteSchema = {
  type: 'object',
  properties: { agent_id: { type: 'string', enum: ['agent1', 'agent2'] }, reason: { type: 'string' } },
};
const webSearchTool = { type: 'web_search_20250305', name: 'web_search', max_uses: 5 };

interface SseEvent {
  event: string;
  data: Record<string, unknown> & { type: string };
}

async function post(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${server.origin}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'secret-key',
      'anthropic-version': '2023-06-01',
    },
    body: JSON.stringify(body),
  });
}

async function streamEvents(reply: ScriptedReply, body: Record<string, unknown> = {}): Promise<SseEvent[]> {
  server.enqueue(reply);
  const response = await post({ model: 'claude-test', max_tokens: 100, messages: [], stream: true, ...body });
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  return parseSse(await response.text());
}

function parseSse(raw: string): SseEvent[] {
  return raw
    .split('\n\n')
    .filter((chunk) => chunk.trim() !== '')
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(chunk)?.[1] ?? '{}') as SseEvent['data'];
      return { event, data };
    });
}

const deltas = (events: SseEvent[], type: string, key: string): string[] =>
  events.flatMap((e) => {
    const delta = e.data.delta as Record<string, unknown> | undefined;
    return e.event === 'content_block_delta' && delta?.type === type ? [String(delta[key])] : [];
  });

describe('anthropic-messages dialect: view', () => {
  it('reads model, string system, custom tool names, the vote enum, message text and stream', () => {
    const view = anthropicMessagesDialect.view(
      {
        model: 'claude-sonnet-4-5',
        system: 'You are agent 1.',
        tools: [
          { name: 'vote', description: 'Vote.', input_schema: voteSchema },
          { name: 'new_answer', input_schema: { type: 'object' } },
          webSearchTool,
        ],
        messages: [
          { role: 'user', content: 'Find it.' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Looking.' },
              { type: 'tool_use', id: 't1', name: 'lookup', input: { q: 1 } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't1', content: 'found 3' },
              { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'found 4' }] },
            ],
          },
        ],
        stream: true,
      },
      '/v1/messages',
    );
    expect(view).toEqual({
      dialect: 'anthropic-messages',
      model: 'claude-sonnet-4-5',
      system: 'You are agent 1.',
      toolNames: ['vote', 'new_answer'],
      votableIds: ['agent1', 'agent2'],
      text: 'Find it.\nLooking.\nfound 3\nfound 4',
      media: [],
      stream: true,
    });
  });

  it('joins a system given as text blocks; no tools, no stream', () => {
    const view = anthropicMessagesDialect.view(
      {
        system: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
        messages: [],
      },
      '/v1/messages',
    );
    expect(view).toMatchObject({
      system: 'one\ntwo',
      toolNames: [],
      votableIds: [],
      text: '',
      stream: false,
    });
  });

  it('answers only POST …/v1/messages', () => {
    expect(anthropicMessagesDialect.matches('POST', '/v1/messages')).toBe(true);
    expect(anthropicMessagesDialect.matches('POST', '/proxy/anthropic/v1/messages')).toBe(true);
    expect(anthropicMessagesDialect.matches('GET', '/v1/messages')).toBe(false);
    expect(anthropicMessagesDialect.matches('POST', '/v1/chat/completions')).toBe(false);
  });
});

describe('anthropic-messages dialect: streaming', () => {
  it('streams thinking (with a signature), then text, framed by message_start … message_stop', async () => {
    const events = await streamEvents({
      reasoning: 'think hard',
      text: 'The answer.',
      chunkSize: 4,
      usage: { promptTokens: 120, completionTokens: 30, cachedTokens: 100 },
    });
    expect(events.every((e) => e.event === e.data.type)).toBe(true);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      ...Array<string>(3).fill('content_block_delta'),
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      ...Array<string>(3).fill('content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]?.data.message).toMatchObject({
      id: expect.stringMatching(/^msg_fake_/),
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 20, cache_read_input_tokens: 100, cache_creation_input_tokens: 0 },
    });
    expect(events[2]?.data).toEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'thinking', thinking: '' },
    });
    expect(deltas(events, 'thinking_delta', 'thinking')).toEqual(['thin', 'k ha', 'rd']);
    expect(deltas(events, 'signature_delta', 'signature')).toEqual([expect.stringMatching(/^fake-sig-/)]);
    expect(events[8]?.data).toMatchObject({ index: 1, content_block: { type: 'text', text: '' } });
    expect(deltas(events, 'text_delta', 'text').join('')).toBe('The answer.');
    expect(events.at(-2)?.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 30 },
    });
  });

  it('streams tool_use blocks with partial_json fragments and stop_reason tool_use', async () => {
    const events = await streamEvents({
      text: 'Checking.',
      toolCalls: [
        { name: 'lookup', arguments: { query: 'multi-agent voting', limit: 3 } },
        { name: 'vote', arguments: { agent_id: 'agent1' }, id: 'toolu_custom' },
      ],
    });
    const starts = events.filter((e) => e.event === 'content_block_start').map((e) => e.data.content_block);
    expect(starts).toEqual([
      { type: 'text', text: '' },
      { type: 'tool_use', id: expect.stringMatching(/^call_/), name: 'lookup', input: {} },
      { type: 'tool_use', id: 'toolu_custom', name: 'vote', input: {} },
    ]);
    const lookupDeltas = events.filter((e) => e.event === 'content_block_delta' && e.data.index === 1);
    expect(lookupDeltas.length).toBeGreaterThan(1);
    const fragments = deltas(lookupDeltas, 'input_json_delta', 'partial_json');
    expect(fragments).toHaveLength(lookupDeltas.length);
    expect(JSON.parse(fragments.join(''))).toEqual({ query: 'multi-agent voting', limit: 3 });
    expect(events.at(-2)?.data.delta).toEqual({ stop_reason: 'tool_use', stop_sequence: null });
  });

  it('renders a scripted web_search as server_tool_use + web_search_tool_result when the tool is offered', async () => {
    const events = await streamEvents(
      {
        text: 'Found it.',
        toolCalls: [{ name: 'web_search', arguments: { query: 'massgen', sources: ['https://a.example/'] } }],
      },
      { tools: [webSearchTool] },
    );
    const starts = events.filter((e) => e.event === 'content_block_start').map((e) => e.data);
    expect(starts).toEqual([
      {
        type: 'content_block_start',
        index: 0,
        content_block: {
          type: 'server_tool_use',
          id: expect.stringMatching(/^srvtoolu_/),
          name: 'web_search',
          input: {},
        },
      },
      {
        type: 'content_block_start',
        index: 1,
        content_block: {
          type: 'web_search_tool_result',
          tool_use_id: (starts[0]?.content_block as { id: string }).id,
          content: [
            {
              type: 'web_search_result',
              url: 'https://a.example/',
              title: 'Result 1',
              encrypted_content: 'fake-encrypted-0',
              page_age: null,
            },
          ],
        },
      },
      { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } },
    ]);
    expect(deltas(events, 'input_json_delta', 'partial_json').join('')).toBe('{"query":"massgen"}');
    // The search ran on the server: the turn ends normally, not with a client tool call.
    expect(events.at(-2)?.data.delta).toEqual({ stop_reason: 'end_turn', stop_sequence: null });
  });

  it('keeps web_search a plain tool_use when the request did not offer the server tool', async () => {
    const events = await streamEvents({ toolCalls: [{ name: 'web_search', arguments: { query: 'x' } }] });
    const starts = events.filter((e) => e.event === 'content_block_start').map((e) => e.data.content_block);
    expect(starts).toEqual([{ type: 'tool_use', id: expect.any(String), name: 'web_search', input: {} }]);
  });

  it('maps vendor-neutral finish reasons to Anthropic stop reasons', async () => {
    const events = await streamEvents({ text: 'cut', finishReason: 'length' });
    expect(events.at(-2)?.data.delta).toEqual({ stop_reason: 'max_tokens', stop_sequence: null });
  });

  it('drops the connection after disconnectAfterChunks content deltas', async () => {
    server.enqueue({ text: 'abcdefghijkl', chunkSize: 2, disconnectAfterChunks: 2 });
    const response = await post({ model: 'm', messages: [], stream: true });
    await expect(response.text()).rejects.toThrow();
  });
});

describe('anthropic-messages dialect: JSON and errors', () => {
  it('answers a non-streaming request with a Message object', async () => {
    server.enqueue({
      reasoning: 'hmm',
      text: 'Use the tool.',
      toolCalls: [{ name: 'lookup', arguments: { query: 'q' }, id: 'toolu_1' }],
      usage: { promptTokens: 50, completionTokens: 7, cachedTokens: 10 },
    });
    const response = await post({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(await response.json()).toEqual({
      id: expect.stringMatching(/^msg_fake_/),
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: expect.stringMatching(/^fake-sig-/) },
        { type: 'text', text: 'Use the tool.' },
        { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { query: 'q' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: 40,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 10,
        output_tokens: 7,
      },
    });
    expect(server.requests[0]?.hasAuthorization).toBe(true);
    expect(server.requests[0]?.headers['x-api-key']).toBeUndefined();
  });

  it('uses Anthropic error bodies with the documented error types', async () => {
    expect(anthropicErrorBody('slow down', 'rate_limit_error')).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'slow down' },
    });
    expect([400, 401, 403, 404, 413, 429, 500, 529].map(anthropicErrorType)).toEqual([
      'invalid_request_error',
      'authentication_error',
      'permission_error',
      'not_found_error',
      'request_too_large',
      'rate_limit_error',
      'api_error',
      'overloaded_error',
    ]);
    server.enqueue({ status: 529 });
    const response = await post({ model: 'm', messages: [], stream: true });
    expect(response.status).toBe(529);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'fake server: scripted HTTP 529' },
    });
  });
});
