import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  fakeWebSearch,
  openAIResponsesDialect,
  type FakeResponsesRequestBody,
} from '../../testing/fake-server/openai-responses.js';
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
  useDialectServer,
} from '../backend.test-support.js';
import { openAIBackend } from './index.js';

const API_KEY = 'sk-test-secret-0123456789';
const fake = useDialectServer<FakeResponsesRequestBody>([openAIResponsesDialect]);
afterEach(() => {
  vi.unstubAllEnvs();
});

function backend(overrides: Partial<BackendSettings> = {}): Backend {
  return openAIBackend.create({
    type: 'openai',
    model: 'gpt-4.1-mini',
    baseUrl: `${fake.server.origin}/v1`,
    apiKey: API_KEY,
    providerOptions: {},
    ...overrides,
  });
}

describe('openai backend: factory', () => {
  it('declares its type, key variable, default base URL and capabilities', () => {
    expect(openAIBackend.type).toBe('openai');
    expect(openAIBackend.apiKeyEnvs({})).toEqual(['OPENAI_API_KEY']);
    expect(openAIBackend.defaultBaseUrl({})).toBe('https://api.openai.com/v1');
    expect(openAIBackend.capabilities).toEqual({
      streaming: true,
      tools: true,
      webSearch: true,
      codeExecution: true,
      reasoning: true,
      imagesIn: true,
    });
    expect(openAIBackend.keyOptional?.({ baseUrl: 'http://localhost:8000/v1' })).toBe(true);
    expect(openAIBackend.keyOptional?.({ baseUrl: 'https://api.openai.com/v1' })).toBe(false);
  });
});

describe('openai backend through the Responses API', () => {
  it('streams text deltas in order and ends with one finish part', async () => {
    fake.server.enqueue({ text: 'The quick brown fox jumps.', chunkSize: 5 });
    const parts = await collect(backend().stream(request()));
    expect(textOf(parts, 'text-delta')).toEqual(['The q', 'uick ', 'brown', ' fox ', 'jumps', '.']);
    expect(parts.filter((p) => p.type === 'finish')).toHaveLength(1);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    expect(fake.server.requests[0]?.path).toBe('/v1/responses');
    expect(fake.server.requests[0]?.body?.stream).toBe(true);
  });

  it('streams reasoning summary deltas as reasoning-delta parts, before the text', async () => {
    fake.server.enqueue({ reasoning: 'think first, then answer', text: 'answer', chunkSize: 6 });
    const parts = await collect(backend({ model: 'o4-mini' }).stream(request()));
    expect(textOf(parts, 'reasoning-delta')).toEqual(['think ', 'first,', ' then ', 'answer']);
    expect(textOf(parts, 'text-delta').join('')).toBe('answer');
    const lastReasoning = parts.findLastIndex((p) => p.type === 'reasoning-delta');
    expect(lastReasoning).toBeLessThan(parts.findIndex((p) => p.type === 'text-delta'));
  });

  it('assembles a function call streamed in fragments and parses its arguments', async () => {
    fake.server.enqueue({
      toolCalls: [{ name: 'lookup', arguments: { query: 'multi-agent voting', limit: 3 } }],
    });
    const parts = await collect(backend().stream(request({ tools: [lookupTool] })));
    expect(parts.filter((p) => p.type === 'tool-call')).toEqual([
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
  });

  it('sends model, input items, function tools, temperature and max_output_tokens', async () => {
    fake.server.enqueue({ text: 'ok' });
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are agent 1.' },
      { role: 'user', content: 'Find it.' },
    ];
    await collect(
      backend({ temperature: 0.3, maxTokens: 256, headers: { 'x-team': 'massgen' } }).stream(
        request({ messages, tools: [lookupTool], toolChoice: 'required' }),
      ),
    );
    const recorded = fake.server.requests[0];
    expect(recorded?.body).toMatchObject({
      model: 'gpt-4.1-mini',
      input: [
        { role: 'system', content: 'You are agent 1.' },
        { role: 'user', content: [{ type: 'input_text', text: 'Find it.' }] },
      ],
      tools: [
        {
          type: 'function',
          name: 'lookup',
          description: 'Looks something up.',
          parameters: lookupTool.parameters,
        },
      ],
      tool_choice: 'required',
      temperature: 0.3,
      max_output_tokens: 256,
      stream: true,
    });
    expect(recorded?.body?.reasoning).toBeUndefined();
    expect(recorded?.view?.system).toBe('You are agent 1.');
    expect(recorded?.headers['x-team']).toBe('massgen');
    expect(recorded?.hasAuthorization).toBe(true);
  });

  it('maps reasoning and verbosity features, and lets provider_options override them', async () => {
    fake.server.enqueue({ text: 'ok' }, { text: 'ok' });
    const features: BackendSettings['features'] = {
      reasoning: { effort: 'high', summary: 'detailed' },
      textVerbosity: 'low',
    };
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ];
    // Even an id the SDK does not know as a reasoning model gets `reasoning` when the config asks.
    await collect(backend({ model: 'my-finetune', features }).stream(request({ messages })));
    expect(fake.server.requests[0]?.body).toMatchObject({
      model: 'my-finetune',
      reasoning: { effort: 'high', summary: 'detailed' },
      text: { verbosity: 'low' },
      // Reasoning models take instructions as `developer` messages.
      input: [{ role: 'developer', content: 'Be brief.' }, { role: 'user' }],
    });

    const custom = backend({
      features,
      providerOptions: {
        reasoningEffort: 'minimal',
        store: false,
        user: 'massgen-test',
      },
    });
    await collect(custom.stream(request()));
    expect(fake.server.requests[1]?.body).toMatchObject({
      reasoning: { effort: 'minimal', summary: 'detailed' },
      store: false,
      user: 'massgen-test',
    });
  });

  it('sends a multi-turn history with tool calls and results as stateless input items', async () => {
    fake.server.enqueue({ text: 'done' });
    const history: ChatMessage[] = [
      ...lookupHistory(),
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_b', name: 'lookup', arguments: '{bad' }] },
      { role: 'tool', toolCallId: 'call_b', toolName: 'lookup', content: 'invalid JSON', isError: true },
      { role: 'assistant', content: 'Here it is.' },
      { role: 'user', content: 'Thanks, and now?' },
    ];
    await collect(backend().stream(request({ messages: history, tools: [lookupTool] })));
    expect(fake.server.requests[0]?.body?.input).toEqual([
      { role: 'system', content: 'You are agent 1.' },
      { role: 'user', content: [{ type: 'input_text', text: 'Find it.' }] },
      { role: 'assistant', content: [{ type: 'output_text', text: 'Searching.' }] },
      { type: 'function_call', call_id: 'call_a', name: 'lookup', arguments: '{"query":"q"}' },
      { type: 'function_call_output', call_id: 'call_a', output: 'found 3 results' },
      // Unparsed arguments travel as a JSON string, exactly as the model produced them.
      { type: 'function_call', call_id: 'call_b', name: 'lookup', arguments: '"{bad"' },
      { type: 'function_call_output', call_id: 'call_b', output: 'invalid JSON' },
      { role: 'assistant', content: [{ type: 'output_text', text: 'Here it is.' }] },
      { role: 'user', content: [{ type: 'input_text', text: 'Thanks, and now?' }] },
    ]);
    // Nothing refers to server-side state from earlier responses.
    const body = fake.server.requests[0]?.body;
    expect(body?.previous_response_id).toBeUndefined();
    expect(JSON.stringify(body?.input)).not.toContain('item_reference');
  });

  it('offers web search and code interpreter, and streams a provider-executed search as provider-tool parts', async () => {
    fake.server.enqueue({
      toolCalls: [fakeWebSearch('massgen voting', { sources: ['https://example.com/votes'], id: 'ws_1' })],
      text: 'Agents vote.',
    });
    const parts = await collect(
      backend({ features: { webSearch: true, codeExecution: true } }).stream(
        request({ tools: [lookupTool] }),
      ),
    );
    const body = fake.server.requests[0]?.body;
    expect(body?.tools).toEqual([
      expect.objectContaining({ type: 'function', name: 'lookup' }),
      { type: 'web_search' },
      { type: 'code_interpreter', container: { type: 'auto' } },
    ]);
    expect(body?.include).toEqual(
      expect.arrayContaining(['web_search_call.action.sources', 'code_interpreter_call.outputs']),
    );
    expect(fake.server.requests[0]?.view?.toolNames).toEqual(['lookup']);
    expect(parts.filter((p) => p.type === 'provider-tool-call')).toEqual([
      { type: 'provider-tool-call', callId: 'ws_1', toolName: 'web_search', input: {} },
    ]);
    expect(parts.filter((p) => p.type === 'provider-tool-result')).toEqual([
      {
        type: 'provider-tool-result',
        callId: 'ws_1',
        toolName: 'web_search',
        output: {
          action: { type: 'search', query: 'massgen voting' },
          sources: [{ type: 'url', url: 'https://example.com/votes' }],
        },
        isError: false,
      },
    ]);
    expect(parts.some((p) => p.type === 'tool-call')).toBe(false);
    expect(textOf(parts, 'text-delta').join('')).toBe('Agents vote.');
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('streams a failed provider web search as an error result', async () => {
    fake.server.enqueue({
      toolCalls: [fakeWebSearch('q', { id: 'ws_2', status: 'failed' })],
      text: 'No luck.',
    });
    const parts = await collect(backend({ features: { webSearch: true } }).stream(request()));
    expect(parts.filter((p) => p.type === 'provider-tool-result')).toEqual([
      expect.objectContaining({ callId: 'ws_2', toolName: 'web_search', isError: true }),
    ]);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('without an API key sends no credential and never reads OPENAI_API_KEY', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-the-environment');
    fake.server.enqueue({ text: 'ok' });
    await collect(backend({ apiKey: undefined }).stream(request()));
    expect(fake.server.requests[0]?.hasAuthorization).toBe(false);
  });
});

describe('openai backend errors', () => {
  it("429 with retry-after: retryable, with retryAfterMs and OpenAI's message", async () => {
    fake.server.enqueue({
      status: 429,
      headers: { 'retry-after': '2' },
      body: {
        error: {
          message: 'Rate limit reached for gpt-4.1-mini',
          type: 'requests',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
    });
    const error = (await failure(backend().stream(request()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 2000, provider: 'openai' });
    expect(error.message).toBe('openai: HTTP 429 Too Many Requests: Rate limit reached for gpt-4.1-mini');
    expect(fake.server.requests).toHaveLength(1);
  });

  it('401: non-retryable, carries the provider message, never the key', async () => {
    fake.server.enqueue({
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: ${API_KEY}.`,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      },
    });
    const error = (await failure(backend().stream(request()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 401, retryable: false });
    expect(error.message).toMatch(/^openai: HTTP 401 Unauthorized: Incorrect API key provided/);
    expect(error.message).not.toContain(API_KEY);
  });

  it('a connection dropped mid-stream: retryable', async () => {
    fake.server.enqueue({ text: 'partial answer that never ends', chunkSize: 4, disconnectAfterChunks: 2 });
    const error = (await failure(backend().stream(request()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(true);
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
});
