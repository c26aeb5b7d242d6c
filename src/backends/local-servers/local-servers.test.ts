import { describe, expect, it } from 'vitest';
import type { BackendFactory, BackendSettings, ModelStreamPart } from '../../types/backend.js';
import {
  collect,
  lookupTool,
  request,
  textOf as deltasOf,
  useOpenAIServer,
} from '../backend.test-support.js';
import { lmstudioBackend, ollamaBackend, sglangBackend, vllmBackend } from './index.js';

const fake = useOpenAIServer();

const servers: Array<[type: string, factory: BackendFactory, defaultBaseUrl: string]> = [
  ['vllm', vllmBackend, 'http://localhost:8000/v1'],
  ['sglang', sglangBackend, 'http://localhost:30000/v1'],
  ['lmstudio', lmstudioBackend, 'http://localhost:1234/v1'],
  ['ollama', ollamaBackend, 'http://localhost:11434/v1'],
];

function settings(type: string, overrides: Partial<BackendSettings> = {}): BackendSettings {
  return { type, model: 'local-model', baseUrl: fake.server.url, providerOptions: {}, ...overrides };
}

const textOf = (parts: ModelStreamPart[], type: 'text-delta' | 'reasoning-delta'): string =>
  deltasOf(parts, type).join('');

describe.each(servers)('%s backend', (type, factory, defaultBaseUrl) => {
  it(`registers as ${type}, defaults to ${defaultBaseUrl} and never needs a key`, () => {
    expect(factory.type).toBe(type);
    expect(factory.defaultBaseUrl({})).toBe(defaultBaseUrl);
    expect(factory.apiKeyEnvs({})).toEqual([]);
    expect(factory.apiKeyEnvs({ baseUrl: 'https://gpu-box.example.com/v1' })).toEqual([]);
    expect(factory.keyOptional?.({})).toBe(true);
    expect(factory.capabilities).toMatchObject({ streaming: true, tools: true, webSearch: false });
  });

  it('streams text, then a tool call, with usage', async () => {
    fake.server.enqueue({
      text: 'Let me look.',
      toolCalls: [{ name: 'lookup', arguments: { query: 'kv cache' } }],
      usage: { promptTokens: 11, completionTokens: 7 },
    });
    const backend = factory.create(settings(type));
    expect(backend).toMatchObject({ type, model: 'local-model' });
    const parts = await collect(backend.stream(request({ tools: [lookupTool] })));
    expect(textOf(parts, 'text-delta')).toBe('Let me look.');
    expect(parts.filter((p) => p.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        call: { id: expect.any(String), name: 'lookup', arguments: { query: 'kv cache' } },
      },
    ]);
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'tool-calls',
      usage: { inputTokens: 11, outputTokens: 7 },
    });
    expect(fake.server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(fake.server.requests[0]?.body?.model).toBe('local-model');
  });

  it('sends extraBody sampling fields in the request body', async () => {
    fake.server.enqueue({ text: 'ok' });
    const extraBody = {
      top_k: 40,
      repetition_penalty: 1.1,
      min_p: 0.05,
      chat_template_kwargs: { enable_thinking: true },
    };
    await collect(factory.create(settings(type, { extraBody, temperature: 0.6 })).stream(request()));
    expect(fake.server.requests[0]?.body).toMatchObject({ ...extraBody, temperature: 0.6, stream: true });
  });

  it('streams reasoning_content as reasoning deltas', async () => {
    fake.server.enqueue({ reasoning: 'Thinking it through.', text: 'Answer.', chunkSize: 5 });
    const parts = await collect(factory.create(settings(type)).stream(request()));
    expect(textOf(parts, 'reasoning-delta')).toBe('Thinking it through.');
    expect(textOf(parts, 'text-delta')).toBe('Answer.');
  });

  it('sends no credentials without api_key, and the configured api_key when set', async () => {
    fake.server.enqueue({ text: 'a' }, { text: 'b' });
    await collect(factory.create(settings(type)).stream(request()));
    await collect(factory.create(settings(type, { apiKey: 'local-secret' })).stream(request()));
    expect(fake.server.requests.map((r) => r.hasAuthorization)).toEqual([false, true]);
  });

  it('prefixes errors with its own type', async () => {
    fake.server.enqueue({ status: 404, body: { error: { message: 'The model `x` does not exist.' } } });
    await expect(collect(factory.create(settings(type)).stream(request()))).rejects.toMatchObject({
      provider: type,
      retryable: false,
      message: `${type}: HTTP 404 Not Found: The model \`x\` does not exist.`,
    });
  });
});
