import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Backend, BackendSettings } from '../../types/backend.js';
import { ProviderError } from '../../types/errors.js';
import type { ChatMessage } from '../../types/messages.js';
import {
  collect,
  failure,
  lookupTool,
  request,
  lookupHistory,
  textOf,
  useOpenAIServer,
} from '../backend.test-support.js';
import { chatCompletionBackend } from './index.js';

const API_KEY = 'sk-test-secret-0123456789';
const fake = useOpenAIServer();

function backend(overrides: Partial<BackendSettings> = {}): Backend {
  return chatCompletionBackend.create({
    type: 'chatcompletion',
    model: 'fake-model',
    baseUrl: fake.server.url,
    apiKey: API_KEY,
    providerOptions: {},
    ...overrides,
  });
}

describe('chatcompletion backend through the AI SDK', () => {
  it('streams text deltas in order and ends with one finish part', async () => {
    fake.server.enqueue({ text: 'The quick brown fox jumps.', chunkSize: 5 });
    const parts = await collect(backend().stream(request()));
    expect(textOf(parts, 'text-delta')).toEqual(['The q', 'uick ', 'brown', ' fox ', 'jumps', '.']);
    expect(parts.filter((p) => p.type === 'finish')).toHaveLength(1);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('streams reasoning deltas separately from text', async () => {
    fake.server.enqueue({ reasoning: 'think first', text: 'answer', chunkSize: 6 });
    const parts = await collect(backend().stream(request()));
    expect(textOf(parts, 'reasoning-delta').join('')).toBe('think first');
    expect(textOf(parts, 'text-delta').join('')).toBe('answer');
  });

  it('reports usage including cached and reasoning tokens', async () => {
    fake.server.enqueue({
      text: 'ok',
      usage: { promptTokens: 120, completionTokens: 30, cachedTokens: 100, reasoningTokens: 12 },
    });
    const parts = await collect(backend().stream(request()));
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { inputTokens: 120, outputTokens: 30, reasoningTokens: 12, cachedInputTokens: 100 },
    });
    expect(fake.server.requests[0]?.body?.stream_options).toEqual({ include_usage: true });
  });

  it('assembles a tool call streamed in fragments and parses its arguments', async () => {
    fake.server.enqueue({
      toolCalls: [{ name: 'lookup', arguments: { query: 'multi-agent voting', limit: 3 } }],
    });
    const parts = await collect(backend().stream(request({ tools: [lookupTool] })));
    const calls = parts.filter((p) => p.type === 'tool-call');
    expect(calls).toEqual([
      {
        type: 'tool-call',
        call: {
          id: expect.stringMatching(/^call_/),
          name: 'lookup',
          arguments: { query: 'multi-agent voting', limit: 3 },
        },
      },
    ]);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
  });

  it('streams text followed by several tool calls', async () => {
    fake.server.enqueue({
      text: 'Let me check.',
      toolCalls: [
        { name: 'lookup', arguments: { query: 'a' } },
        { name: 'lookup', arguments: { query: 'b' } },
      ],
    });
    const parts = await collect(backend().stream(request({ tools: [lookupTool] })));
    expect(textOf(parts, 'text-delta').join('')).toBe('Let me check.');
    const args = parts.flatMap((p) => (p.type === 'tool-call' ? [p.call.arguments] : []));
    expect(args).toEqual([{ query: 'a' }, { query: 'b' }]);
    const firstCall = parts.findIndex((p) => p.type === 'tool-call');
    const lastText = parts.findLastIndex((p) => p.type === 'text-delta');
    expect(lastText).toBeLessThan(firstCall);
  });

  it('yields invalid tool calls too: raw string for bad JSON, parsed input for an unknown tool', async () => {
    fake.server.enqueue({
      toolCalls: [
        { name: 'lookup', arguments: '{"query": "unterminated' },
        { name: 'no_such_tool', arguments: { x: 1 } },
      ],
    });
    const parts = await collect(backend().stream(request({ tools: [lookupTool] })));
    const calls = parts.flatMap((p) => (p.type === 'tool-call' ? [p.call] : []));
    expect(calls.map((c) => [c.name, c.arguments])).toEqual([
      ['lookup', '{"query": "unterminated'],
      ['no_such_tool', { x: 1 }],
    ]);
    expect(parts.at(-1)?.type).toBe('finish');
  });

  it('sends system, assistant tool-call and tool-result messages in OpenAI wire format', async () => {
    fake.server.enqueue({ text: 'done' });
    const history: ChatMessage[] = [
      ...lookupHistory(),
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_b', name: 'lookup', arguments: '{bad' }] },
      { role: 'tool', toolCallId: 'call_b', toolName: 'lookup', content: 'invalid JSON', isError: true },
    ];
    await collect(
      backend().stream(request({ messages: history, tools: [lookupTool], toolChoice: 'required' })),
    );
    const body = fake.server.requests[0]?.body;
    expect(body?.messages).toEqual([
      { role: 'system', content: 'You are agent 1.' },
      { role: 'user', content: 'Find it.' },
      {
        role: 'assistant',
        content: 'Searching.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '{"query":"q"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'found 3 results' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_b', type: 'function', function: { name: 'lookup', arguments: '"{bad"' } }],
      },
      { role: 'tool', tool_call_id: 'call_b', content: 'invalid JSON' },
    ]);
    expect(body?.tools).toEqual([
      {
        type: 'function',
        function: { name: 'lookup', description: 'Looks something up.', parameters: lookupTool.parameters },
      },
    ]);
    expect(body?.tool_choice).toBe('required');
    expect(body?.stream).toBe(true);
    expect(body?.model).toBe('fake-model');
  });

  it('forwards temperature, max_tokens, headers, the API key and provider options', async () => {
    fake.server.enqueue({ text: 'ok' });
    const custom = backend({
      temperature: 0.3,
      maxTokens: 256,
      headers: { 'x-team': 'massgen' },
      providerOptions: { reasoningEffort: 'low', top_k: 40 },
    });
    await collect(custom.stream(request()));
    const recorded = fake.server.requests[0];
    expect(recorded?.body).toMatchObject({
      temperature: 0.3,
      max_tokens: 256,
      reasoning_effort: 'low',
      top_k: 40,
    });
    expect(recorded?.headers['x-team']).toBe('massgen');
    expect(recorded?.hasAuthorization).toBe(true);
  });

  it('sends no tools and no tool_choice when the request has no tools', async () => {
    fake.server.enqueue({ text: 'ok' });
    await collect(backend({ apiKey: undefined }).stream(request({ toolChoice: 'required' })));
    const body = fake.server.requests[0]?.body;
    expect(body?.tools).toBeUndefined();
    expect(body?.tool_choice).toBeUndefined();
    expect(fake.server.requests[0]?.hasAuthorization).toBe(false);
  });
});

describe('chatcompletion backend errors', () => {
  it('401: non-retryable, carries the provider message, never the key', async () => {
    fake.server.enqueue({
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${API_KEY}.`, type: 'invalid_request_error' } },
    });
    const error = await failure(backend().stream(request()));
    expect(error).toBeInstanceOf(ProviderError);
    const providerError = error as ProviderError;
    expect(providerError).toMatchObject({ status: 401, retryable: false, provider: 'chatcompletion' });
    expect(providerError.message).toMatch(
      /^chatcompletion: HTTP 401 Unauthorized: Incorrect API key provided/,
    );
    expect(providerError.message).not.toContain(API_KEY);
  });

  it('429 with retry-after: retryable with retryAfterMs', async () => {
    fake.server.enqueue({ status: 429, headers: { 'retry-after': '2' } });
    const error = (await failure(backend().stream(request()))) as ProviderError;
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 2000 });
  });

  it('429 with retry-after: 0 gives retryAfterMs 0', async () => {
    fake.server.enqueue({ status: 429, headers: { 'retry-after': '0' } });
    const error = (await failure(backend().stream(request()))) as ProviderError;
    expect(error.retryAfterMs).toBe(0);
  });

  it('500: retryable', async () => {
    fake.server.enqueue({
      status: 500,
      body: { error: { message: 'The server had an error', type: 'server_error' } },
    });
    const error = (await failure(backend().stream(request()))) as ProviderError;
    expect(error).toMatchObject({ status: 500, retryable: true });
    expect(error.message).toBe('chatcompletion: HTTP 500 Internal Server Error: The server had an error');
    // maxRetries: 0: the SDK must not retry behind the orchestrator's back.
    expect(fake.server.requests).toHaveLength(1);
  });

  it('an unreachable port: retryable network error naming the base URL', async () => {
    const baseUrl = `http://127.0.0.1:${await freePort()}/v1`;
    const error = (await failure(backend({ baseUrl }).stream(request()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(true);
    expect(error.message).toBe(`chatcompletion: cannot reach ${baseUrl} (ECONNREFUSED)`);
  });

  it('a connection dropped mid-stream: retryable', async () => {
    fake.server.enqueue({ text: 'partial answer that never ends', chunkSize: 4, disconnectAfterChunks: 2 });
    const error = (await failure(backend().stream(request()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('lost mid-response');
  });

  it.each([
    ['before response headers', false],
    ['while reading the body', true],
  ])('abort %s rejects promptly with the abort reason itself', async (_label, sendHeaders) => {
    fake.server.enqueue({ hang: true, sendHeaders });
    const controller = new AbortController();
    const reason = new Error('user pressed ctrl-c');
    setTimeout(() => controller.abort(reason), 100);
    const error = await failure(backend().stream(request({ signal: controller.signal })));
    expect(error).toBe(reason);
  });

  it('abort mid-text rejects with the reason after the deltas already yielded', async () => {
    fake.server.enqueue({ text: 'one two three four five six', chunkSize: 4, delayMs: 40 });
    const controller = new AbortController();
    const texts: string[] = [];
    let caught: unknown;
    try {
      for await (const part of backend().stream(request({ signal: controller.signal }))) {
        if (part.type === 'text-delta') texts.push(part.text);
        if (texts.length === 2) controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(caught).toBe(controller.signal.reason);
    expect((caught as Error).name).toBe('AbortError');
    expect(texts).toHaveLength(2);
  });

  it('an already aborted signal throws its reason without calling the server', async () => {
    const controller = new AbortController();
    controller.abort('gone');
    await expect(collect(backend().stream(request({ signal: controller.signal })))).rejects.toBe('gone');
    expect(fake.server.requests).toHaveLength(0);
  });
});

/** A port nothing listens on: bind an ephemeral one, then release it. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
