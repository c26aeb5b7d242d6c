import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody } from '../../testing/fake-server/openai-chat.js';
import { xaiChatDialect } from '../../testing/fake-server/xai-chat.js';
import type { Backend, BackendSettings, ModelRequest } from '../../types/backend.js';
import { ProviderError } from '../../types/errors.js';
import {
  request as baseRequest,
  collect,
  failure,
  lookupTool,
  useDialectServer,
} from '../backend.test-support.js';
import { grokBackend } from './index.js';

const API_KEY = 'xai-test-secret-0123456789';

const fake = useDialectServer<FakeChatRequestBody>([xaiChatDialect]);

function backend(overrides: Partial<BackendSettings> = {}): Backend {
  return grokBackend.create({
    type: 'grok',
    model: 'grok-4.3',
    baseUrl: `${fake.server.origin}/v1`,
    apiKey: API_KEY,
    providerOptions: {},
    ...overrides,
  });
}

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest =>
  baseRequest({ messages: [{ role: 'user', content: 'What changed this week?' }], ...overrides });

describe('grok backend factory', () => {
  it('registers as grok with XAI_API_KEY and api.x.ai', () => {
    expect(grokBackend.type).toBe('grok');
    expect(grokBackend.apiKeyEnvs({})).toEqual(['XAI_API_KEY']);
    expect(grokBackend.defaultBaseUrl({})).toBe('https://api.x.ai/v1');
    expect(grokBackend.capabilities).toEqual({
      streaming: true,
      tools: true,
      webSearch: true,
      codeExecution: false,
      reasoning: true,
      imagesIn: true,
    });
  });
});

describe('grok backend through the AI SDK (Chat Completions)', () => {
  it('posts to /chat/completions with the model and key, streaming text, a tool call and usage', async () => {
    fake.server.enqueue({
      text: 'Checking.',
      toolCalls: [{ name: 'lookup', arguments: { query: 'release notes' } }],
      usage: { promptTokens: 50, completionTokens: 20, cachedTokens: 10, reasoningTokens: 5 },
    });
    const parts = await collect(backend().stream(request({ tools: [lookupTool] })));
    const recorded = fake.server.requests[0];
    expect(recorded?.path).toBe('/v1/chat/completions');
    expect(recorded?.hasAuthorization).toBe(true);
    expect(recorded?.body).toMatchObject({ model: 'grok-4.3', stream: true });
    expect(recorded?.body?.search_parameters).toBeUndefined();
    expect(recorded?.body?.reasoning_effort).toBeUndefined();
    expect(parts.flatMap((p) => (p.type === 'text-delta' ? [p.text] : [])).join('')).toBe('Checking.');
    expect(parts.filter((p) => p.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        call: { id: expect.any(String), name: 'lookup', arguments: { query: 'release notes' } },
      },
    ]);
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'tool-calls',
      // xAI's completion_tokens exclude reasoning tokens; the SDK adds them back.
      usage: { inputTokens: 50, outputTokens: 25, reasoningTokens: 5, cachedInputTokens: 10 },
    });
  });

  it('streams reasoning_content as reasoning deltas', async () => {
    fake.server.enqueue({ reasoning: 'Weighing sources.', text: 'Done.', chunkSize: 4 });
    const parts = await collect(backend().stream(request()));
    expect(parts.flatMap((p) => (p.type === 'reasoning-delta' ? [p.text] : [])).join('')).toBe(
      'Weighing sources.',
    );
  });

  it.each([
    ['low', 'low'],
    ['high', 'high'],
    ['medium', 'medium'],
    ['minimal', 'low'],
  ] as const)('features.reasoning.effort %s sends reasoning_effort %s', async (effort, wire) => {
    fake.server.enqueue({ text: 'ok' });
    await collect(backend({ features: { reasoning: { effort } } }).stream(request()));
    expect(fake.server.requests[0]?.body?.reasoning_effort).toBe(wire);
  });

  it('forwards temperature, max tokens and headers', async () => {
    fake.server.enqueue({ text: 'ok' });
    await collect(
      backend({ temperature: 0.2, maxTokens: 99, headers: { 'x-team': 'massgen' } }).stream(request()),
    );
    expect(fake.server.requests[0]?.body).toMatchObject({ temperature: 0.2, max_completion_tokens: 99 });
    expect(fake.server.requests[0]?.headers['x-team']).toBe('massgen');
  });
});

describe('grok backend errors', () => {
  it('an xAI-style 429 with retry-after is retryable with retryAfterMs', async () => {
    fake.server.enqueue({
      status: 429,
      headers: { 'retry-after': '3' },
      body: { code: 'Some resource has been exhausted', error: 'Rate limit reached for grok-4.3.' },
    });
    const error = (await failure(backend().stream(request()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'grok', status: 429, retryable: true, retryAfterMs: 3000 });
    expect(error.message).toBe('grok: HTTP 429 Too Many Requests: Rate limit reached for grok-4.3.');
  });

  it('401 is final and never shows the key', async () => {
    fake.server.enqueue({
      status: 401,
      body: { code: 'Client specified an invalid argument', error: `Incorrect API key provided: ${API_KEY}` },
    });
    const error = (await failure(backend().stream(request()))) as ProviderError;
    expect(error).toMatchObject({ status: 401, retryable: false });
    expect(error.message).not.toContain(API_KEY);
  });
});
