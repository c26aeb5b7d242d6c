import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BackendSettings } from '../../types/backend.js';
import { ProviderError } from '../../types/errors.js';
import { collect, request, useOpenAIServer } from '../backend.test-support.js';
import { OPENAI_COMPATIBLE_PRESETS } from '../presets.js';
import { chatCompletionBackend as factory } from './index.js';

const fake = useOpenAIServer();
afterEach(() => {
  vi.unstubAllGlobals();
});

function settings(overrides: Partial<BackendSettings> = {}): BackendSettings {
  return { type: 'chatcompletion', model: 'fake-model', providerOptions: {}, ...overrides };
}

const userTurn = () => request({ messages: [{ role: 'user', content: 'Hi' }] });

describe('chatcompletion presets: key variable and default base URL', () => {
  const presets = OPENAI_COMPATIBLE_PRESETS.map((p) => [p.name, p.apiKeyEnv, p.baseUrl] as const);

  it.each(presets)('provider: %s reads %s and defaults to %s', (provider, apiKeyEnv, baseUrl) => {
    expect(factory.apiKeyEnvs({ provider })).toEqual([apiKeyEnv]);
    expect(factory.defaultBaseUrl({ provider })).toBe(baseUrl);
    expect(factory.keyOptional?.({ provider })).toBe(false);
  });

  it.each(presets)('base_url of %s without provider: reads %s', (_name, apiKeyEnv, baseUrl) => {
    expect(factory.apiKeyEnvs({ baseUrl })).toEqual([apiKeyEnv]);
  });

  it('the groq host selects GROQ_API_KEY', () => {
    expect(factory.apiKeyEnvs({ baseUrl: 'https://api.groq.com/openai/v1' })).toEqual(['GROQ_API_KEY']);
  });

  it('aliases work like their preset', () => {
    expect(factory.apiKeyEnvs({ provider: 'kimi' })).toEqual(['MOONSHOT_API_KEY']);
    expect(factory.defaultBaseUrl({ provider: 'glm' })).toBe('https://api.z.ai/api/paas/v4');
  });

  it('provider: wins over the base_url host (e.g. a gateway on another domain)', () => {
    expect(factory.apiKeyEnvs({ provider: 'openrouter', baseUrl: 'https://api.groq.com/openai/v1' })).toEqual(
      ['OPENROUTER_API_KEY'],
    );
  });

  it('with neither, OpenAI: OPENAI_API_KEY and api.openai.com', () => {
    expect(factory.apiKeyEnvs({})).toEqual(['OPENAI_API_KEY']);
    expect(factory.defaultBaseUrl({})).toBe('https://api.openai.com/v1');
    expect(factory.apiKeyEnvs({ baseUrl: 'https://llm.example.com/v1' })).toEqual(['OPENAI_API_KEY']);
  });

  it('a loopback base_url needs no key and reads no key variable unless provider: names one', () => {
    expect(factory.apiKeyEnvs({ baseUrl: 'http://localhost:8000/v1' })).toEqual([]);
    expect(factory.keyOptional?.({ baseUrl: 'http://127.0.0.1:8000/v1' })).toBe(true);
    // A local gateway in front of a hosted provider still gets that provider's key when available.
    expect(factory.apiKeyEnvs({ baseUrl: 'http://localhost:4000/v1', provider: 'groq' })).toEqual([
      'GROQ_API_KEY',
    ]);
    expect(factory.keyOptional?.({ baseUrl: 'http://localhost:4000/v1', provider: 'groq' })).toBe(true);
  });

  it('an unknown provider: falls back to host detection, then OpenAI, and create() does not throw', () => {
    expect(factory.apiKeyEnvs({ provider: 'nope' })).toEqual(['OPENAI_API_KEY']);
    expect(factory.apiKeyEnvs({ provider: 'nope', baseUrl: 'https://api.groq.com/openai/v1' })).toEqual([
      'GROQ_API_KEY',
    ]);
    expect(factory.defaultBaseUrl({ provider: 'nope' })).toBe('https://api.openai.com/v1');
    expect(factory.create(settings({ provider: 'nope' }))).toMatchObject({ type: 'chatcompletion' });
  });

  it('lists every preset and alias for provider: validation', () => {
    const names = factory.presets?.map((p) => p.name) ?? [];
    expect(names).toEqual(expect.arrayContaining(['openai', 'groq', 'moonshot', 'kimi', 'zai', 'glm']));
  });

  it('declares no provider web search or code execution', () => {
    expect(factory.capabilities).toMatchObject({ webSearch: false, codeExecution: false, tools: true });
  });
});

describe('chatcompletion presets through the AI SDK', () => {
  it("create() without base_url calls the preset's base URL with the key", async () => {
    const calls: Array<[url: string, authorization: string | null]> = [];
    vi.stubGlobal('fetch', async (input: string | URL | Request, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      calls.push([url, new Headers(init?.headers).get('authorization')]);
      return new Response(JSON.stringify({ error: { message: 'stubbed' } }), {
        status: 401,
        headers: { 'content-type': 'application/json' },
      });
    });
    const backend = factory.create(settings({ provider: 'groq', apiKey: 'gsk-test' }));
    await expect(collect(backend.stream(userTurn()))).rejects.toBeInstanceOf(ProviderError);
    expect(calls).toEqual([['https://api.groq.com/openai/v1/chat/completions', 'Bearer gsk-test']]);
  });

  it('a provider with a loopback base_url streams from that server', async () => {
    fake.server.enqueue({ text: 'hello from groq-compatible' });
    const backend = factory.create(
      settings({ provider: 'groq', baseUrl: fake.server.url, apiKey: 'gsk-test' }),
    );
    const parts = await collect(backend.stream(userTurn()));
    expect(parts.flatMap((p) => (p.type === 'text-delta' ? [p.text] : [])).join('')).toBe(
      'hello from groq-compatible',
    );
    expect(fake.server.requests[0]?.hasAuthorization).toBe(true);
  });

  it('sends extraBody fields in the request body, never replacing protocol fields', async () => {
    fake.server.enqueue({ text: 'ok' });
    const backend = factory.create(
      settings({
        baseUrl: fake.server.url,
        extraBody: {
          top_k: 20,
          repetition_penalty: 1.05,
          chat_template_kwargs: { enable_thinking: false },
          model: 'hijacked',
          stream: false,
          messages: [],
        },
      }),
    );
    await collect(backend.stream(userTurn()));
    const body = fake.server.requests[0]?.body;
    expect(body).toMatchObject({
      top_k: 20,
      repetition_penalty: 1.05,
      chat_template_kwargs: { enable_thinking: false },
      model: 'fake-model',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(body?.messages).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('features.reasoning.effort becomes reasoning_effort; explicit provider options win', async () => {
    fake.server.enqueue({ text: 'a' }, { text: 'b' });
    await collect(
      factory
        .create(settings({ baseUrl: fake.server.url, features: { reasoning: { effort: 'high' } } }))
        .stream(userTurn()),
    );
    await collect(
      factory
        .create(
          settings({
            baseUrl: fake.server.url,
            features: { reasoning: { effort: 'high' } },
            providerOptions: { reasoningEffort: 'low' },
          }),
        )
        .stream(userTurn()),
    );
    expect(fake.server.requests.map((r) => r.body?.reasoning_effort)).toEqual(['high', 'low']);
  });
});
