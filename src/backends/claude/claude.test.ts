import { describe, expect, it } from 'vitest';
import {
  anthropicMessagesDialect,
  type FakeMessagesRequestBody,
} from '../../testing/fake-server/anthropic-messages.js';
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
import { claudeBackend, DEFAULT_MAX_TOKENS } from './index.js';

const API_KEY = 'sk-ant-test-secret-0123456789';
const fake = useDialectServer<FakeMessagesRequestBody>([anthropicMessagesDialect]);

function backend(overrides: Partial<BackendSettings> = {}): Backend {
  return claudeBackend.create({
    type: 'claude',
    model: 'claude-sonnet-4-5',
    baseUrl: `${fake.server.origin}/v1`,
    apiKey: API_KEY,
    providerOptions: {},
    ...overrides,
  });
}

describe('claude backend: factory', () => {
  it('declares its type, key variable, base URL and capabilities', () => {
    expect(claudeBackend.type).toBe('claude');
    expect(claudeBackend.apiKeyEnvs({})).toEqual(['ANTHROPIC_API_KEY']);
    expect(claudeBackend.defaultBaseUrl({})).toBe('https://api.anthropic.com/v1');
    expect(claudeBackend.keyOptional?.({ baseUrl: 'http://127.0.0.1:4000/v1' })).toBe(true);
    expect(claudeBackend.keyOptional?.({ baseUrl: 'https://api.anthropic.com/v1' })).toBe(false);
    expect(claudeBackend.capabilities).toEqual({
      streaming: true,
      tools: true,
      webSearch: true,
      codeExecution: true,
      reasoning: true,
      imagesIn: true,
    });
    expect(backend()).toMatchObject({ type: 'claude', model: 'claude-sonnet-4-5' });
  });
});

describe('claude backend through the AI SDK', () => {
  it('streams text deltas in order and ends with one finish part', async () => {
    fake.server.enqueue({ text: 'The quick brown fox jumps.', chunkSize: 5 });
    const parts = await collect(backend().stream(request()));
    expect(textOf(parts, 'text-delta')).toEqual(['The q', 'uick ', 'brown', ' fox ', 'jumps', '.']);
    expect(parts.filter((p) => p.type === 'finish')).toHaveLength(1);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    expect(fake.server.requests[0]?.path).toBe('/v1/messages');
  });

  it('streams thinking deltas as reasoning-delta, before the text', async () => {
    fake.server.enqueue({ reasoning: 'think first, then answer', text: 'answer', chunkSize: 6 });
    const parts = await collect(backend().stream(request()));
    expect(textOf(parts, 'reasoning-delta')).toEqual(['think ', 'first,', ' then ', 'answer']);
    expect(textOf(parts, 'text-delta').join('')).toBe('answer');
    const lastReasoning = parts.findLastIndex((p) => p.type === 'reasoning-delta');
    expect(lastReasoning).toBeLessThan(parts.findIndex((p) => p.type === 'text-delta'));
  });

  it('reports usage with cache reads as cachedInputTokens (input includes them)', async () => {
    fake.server.enqueue({
      text: 'ok',
      usage: { promptTokens: 120, completionTokens: 30, cachedTokens: 100 },
    });
    const parts = await collect(backend().stream(request()));
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { inputTokens: 120, outputTokens: 30, reasoningTokens: 0, cachedInputTokens: 100 },
    });
  });

  it('assembles a tool_use streamed as partial_json fragments into a tool-call with parsed args', async () => {
    fake.server.enqueue({
      text: 'Let me check.',
      toolCalls: [{ name: 'lookup', arguments: { query: 'multi-agent voting', limit: 3 }, id: 'toolu_01' }],
    });
    const parts = await collect(backend().stream(request({ tools: [lookupTool] })));
    expect(parts.filter((p) => p.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        call: { id: 'toolu_01', name: 'lookup', arguments: { query: 'multi-agent voting', limit: 3 } },
      },
    ]);
    expect(textOf(parts, 'text-delta').join('')).toBe('Let me check.');
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
  });

  it('sends model, system, history with tool_use / tool_result, tools, max_tokens and headers', async () => {
    fake.server.enqueue({ text: 'done' });
    const history: ChatMessage[] = [
      ...lookupHistory('toolu_a'),
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'toolu_b', name: 'lookup', arguments: { query: 'r' } }],
      },
      { role: 'tool', toolCallId: 'toolu_b', toolName: 'lookup', content: 'lookup failed', isError: true },
    ];
    const custom = backend({ temperature: 0.3, headers: { 'x-team': 'massgen' } });
    await collect(custom.stream(request({ messages: history, tools: [lookupTool], toolChoice: 'required' })));
    const recorded = fake.server.requests[0];
    const body = recorded?.body;
    expect(body).toMatchObject({
      model: 'claude-sonnet-4-5',
      max_tokens: DEFAULT_MAX_TOKENS,
      temperature: 0.3,
      stream: true,
      system: [{ type: 'text', text: 'You are agent 1.' }],
      tool_choice: { type: 'any' },
    });
    expect(body?.thinking).toBeUndefined();
    expect(body?.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Find it.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Searching.' },
          { type: 'tool_use', id: 'toolu_a', name: 'lookup', input: { query: 'q' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'found 3 results' }],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_b', name: 'lookup', input: { query: 'r' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_b', content: 'lookup failed', is_error: true }],
      },
    ]);
    expect(body?.tools).toEqual([
      {
        name: 'lookup',
        description: 'Looks something up.',
        input_schema: lookupTool.parameters,
        // The SDK's default fine-grained tool streaming (`providerOptions.toolStreaming`).
        eager_input_streaming: true,
      },
    ]);
    expect(recorded?.view?.text).toContain('found 3 results');
    expect(recorded?.hasAuthorization).toBe(true);
    expect(recorded?.headers['anthropic-version']).toBe('2023-06-01');
    expect(recorded?.headers['x-team']).toBe('massgen');
  });

  it('maps features.thinking to a thinking budget on top of max_tokens, and passes provider options', async () => {
    fake.server.enqueue({ text: 'ok' });
    const thinking = backend({
      maxTokens: 1000,
      features: { thinking: { budgetTokens: 2048 } },
      providerOptions: { disableParallelToolUse: true },
    });
    await collect(thinking.stream(request({ tools: [lookupTool] })));
    expect(fake.server.requests[0]?.body).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 2048 },
      max_tokens: 3048,
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    });
  });

  it('lets provider_options override the feature-derived thinking', async () => {
    fake.server.enqueue({ text: 'ok' });
    const custom = backend({
      features: { thinking: { budgetTokens: 2048 } },
      providerOptions: { thinking: { type: 'enabled', budgetTokens: 1500 } },
    });
    await collect(custom.stream(request()));
    expect(fake.server.requests[0]?.body?.thinking).toEqual({ type: 'enabled', budget_tokens: 1500 });
  });

  it('replays signed thinking before the tool_use of the next step, as Anthropic requires', async () => {
    const claude = backend({ features: { thinking: { budgetTokens: 1024 } } });
    fake.server.enqueue({
      reasoning: 'I should look it up.',
      toolCalls: [{ name: 'lookup', arguments: { query: 'q' }, id: 'toolu_think' }],
    });
    const first = await collect(claude.stream(request({ tools: [lookupTool] })));
    const call = first.find((p) => p.type === 'tool-call');
    expect(call).toBeDefined();
    fake.server.enqueue({ text: 'done' });
    const history: ChatMessage[] = [
      { role: 'user', content: 'Hello?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'toolu_think', name: 'lookup', arguments: { query: 'q' } }],
      },
      { role: 'tool', toolCallId: 'toolu_think', toolName: 'lookup', content: 'result' },
    ];
    await collect(claude.stream(request({ messages: history, tools: [lookupTool] })));
    expect(fake.server.requests[1]?.body?.messages?.[1]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'thinking',
          thinking: 'I should look it up.',
          signature: expect.stringMatching(/^fake-sig-/),
        },
        { type: 'tool_use', id: 'toolu_think', name: 'lookup', input: { query: 'q' } },
      ],
    });
  });

  it('offers web search as a server tool and streams its call and result as provider-tool parts', async () => {
    fake.server.enqueue({
      text: 'MassGen is a multi-agent system.',
      toolCalls: [{ name: 'web_search', arguments: { query: 'massgen', sources: ['https://a.example/'] } }],
    });
    const parts = await collect(
      backend({ features: { webSearch: true } }).stream(request({ tools: [lookupTool] })),
    );
    expect(fake.server.requests[0]?.body?.tools).toEqual([
      {
        name: 'lookup',
        description: 'Looks something up.',
        input_schema: lookupTool.parameters,
        // The SDK's default fine-grained tool streaming (`providerOptions.toolStreaming`).
        eager_input_streaming: true,
      },
      { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
    ]);
    const providerParts = parts.filter(
      (p) => p.type === 'provider-tool-call' || p.type === 'provider-tool-result',
    );
    expect(providerParts).toEqual([
      {
        type: 'provider-tool-call',
        callId: expect.stringMatching(/^srvtoolu_/),
        toolName: 'web_search',
        input: { query: 'massgen' },
      },
      {
        type: 'provider-tool-result',
        callId: expect.stringMatching(/^srvtoolu_/),
        toolName: 'web_search',
        output: [
          {
            type: 'web_search_result',
            url: 'https://a.example/',
            title: 'Result 1',
            pageAge: null,
            encryptedContent: 'fake-encrypted-0',
          },
        ],
        isError: false,
      },
    ]);
    expect(parts.some((p) => p.type === 'tool-call')).toBe(false);
    expect(textOf(parts, 'text-delta').join('')).toBe('MassGen is a multi-agent system.');
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('offers code execution as a server tool with its beta header', async () => {
    fake.server.enqueue({ text: 'ok' });
    await collect(backend({ features: { codeExecution: true } }).stream(request()));
    expect(fake.server.requests[0]?.body?.tools).toEqual([
      { type: 'code_execution_20250825', name: 'code_execution' },
    ]);
    expect(fake.server.requests[0]?.headers['anthropic-beta']).toContain('code-execution-2025-08-25');
  });
});

describe('claude backend errors', () => {
  it('429 with retry-after: retryable, retryAfterMs and Anthropic’s message', async () => {
    fake.server.enqueue({
      status: 429,
      headers: { 'retry-after': '3' },
      body: {
        type: 'error',
        error: {
          type: 'rate_limit_error',
          message: 'Number of request tokens has exceeded your rate limit.',
        },
      },
    });
    const error = (await failure(backend().stream(request()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 3000, provider: 'claude' });
    expect(error.message).toBe(
      'claude: HTTP 429 Too Many Requests: Number of request tokens has exceeded your rate limit.',
    );
    expect(fake.server.requests).toHaveLength(1);
  });

  it('529 overloaded: retryable', async () => {
    fake.server.enqueue({ status: 529 });
    const error = (await failure(backend().stream(request()))) as ProviderError;
    expect(error).toMatchObject({ status: 529, retryable: true });
    expect(error.message).toBe('claude: HTTP 529 Overloaded: fake server: scripted HTTP 529');
  });

  it('401: non-retryable, carries the provider message, never the key', async () => {
    fake.server.enqueue({
      status: 401,
      body: {
        type: 'error',
        error: { type: 'authentication_error', message: `invalid x-api-key ${API_KEY}` },
      },
    });
    const error = (await failure(backend().stream(request()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 401, retryable: false });
    expect(error.message).toMatch(/^claude: HTTP 401 Unauthorized: invalid x-api-key/);
    expect(error.message).not.toContain(API_KEY);
  });

  it('abort mid-stream rejects promptly with the abort reason itself', async () => {
    fake.server.enqueue({ text: 'one two three four five six seven', chunkSize: 4, delayMs: 50 });
    const controller = new AbortController();
    const reason = new Error('user pressed ctrl-c');
    const texts: string[] = [];
    let caught: unknown;
    try {
      for await (const part of backend().stream(request({ signal: controller.signal }))) {
        if (part.type === 'text-delta') texts.push(part.text);
        if (texts.length === 2) controller.abort(reason);
      }
    } catch (error) {
      caught = error;
    }
    expect(caught).toBe(reason);
    expect(texts).toHaveLength(2);
  });

  it('abort while the server hangs before any event rejects with the reason', async () => {
    fake.server.enqueue({ hang: true, sendHeaders: true });
    const controller = new AbortController();
    const reason = new Error('stop');
    setTimeout(() => controller.abort(reason), 100);
    expect(await failure(backend().stream(request({ signal: controller.signal })))).toBe(reason);
  });
});
