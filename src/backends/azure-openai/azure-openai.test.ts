import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  fakeWebSearch,
  openAIResponsesDialect,
  type FakeResponsesRequestBody,
} from '../../testing/fake-server/openai-responses.js';
import type { Backend, BackendSettings, ModelStreamPart } from '../../types/backend.js';
import { ConfigError, ProviderError } from '../../types/errors.js';
import { collect, request, textOf, useDialectServer } from '../backend.test-support.js';
import { azureEndpoint } from './azure-base-url.js';
import { azureOpenAIBackend } from './index.js';

const API_KEY = 'azure-test-key-0123456789';
const fake = useDialectServer<FakeResponsesRequestBody>([openAIResponsesDialect]);
afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});

function backend(overrides: Partial<BackendSettings> = {}): Backend {
  return azureOpenAIBackend.create({
    type: 'azure_openai',
    model: 'my-gpt-deployment',
    baseUrl: `${fake.server.origin}/openai/v1`,
    apiKey: API_KEY,
    providerOptions: {},
    ...overrides,
  });
}

const texts = (parts: ModelStreamPart[]) => textOf(parts, 'text-delta');

/**
 * Sends requests for `*.openai.azure.com` to the fake server instead (the SDK picks its URL shape by
 * host name), and records the URL and credential headers the SDK produced.
 */
function routeAzureHostToFake(): Array<{ url: string; headers: Headers }> {
  const seen: Array<{ url: string; headers: Headers }> = [];
  const realFetch = globalThis.fetch;
  vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    seen.push({ url: url.toString(), headers: new Headers(init?.headers) });
    return realFetch(`${fake.server.origin}${url.pathname}${url.search}`, init);
  });
  return seen;
}

describe('azure_openai backend: factory', () => {
  it('declares its type, key variable, no default base URL and capabilities', () => {
    expect(azureOpenAIBackend.type).toBe('azure_openai');
    expect(azureOpenAIBackend.apiKeyEnvs({})).toEqual(['AZURE_OPENAI_API_KEY']);
    expect(azureOpenAIBackend.defaultBaseUrl({})).toBeUndefined();
    expect(azureOpenAIBackend.capabilities).toMatchObject({
      webSearch: true,
      codeExecution: true,
      reasoning: true,
    });
  });

  it('requires base_url', () => {
    expect(() => backend({ baseUrl: undefined })).toThrow(ConfigError);
    expect(() => backend({ baseUrl: undefined })).toThrow(/azure_openai: base_url is required/);
    expect(() => backend({ baseUrl: 'not a url' })).toThrow(/base_url is not a URL/);
  });
});

describe('azureEndpoint', () => {
  it.each([
    ['https://res.openai.azure.com', 'https://res.openai.azure.com/openai'],
    ['https://res.openai.azure.com/', 'https://res.openai.azure.com/openai'],
    ['https://res.openai.azure.com/openai', 'https://res.openai.azure.com/openai'],
    ['https://res.openai.azure.com/openai/v1/', 'https://res.openai.azure.com/openai/v1'],
    ['https://res.cognitiveservices.azure.com', 'https://res.cognitiveservices.azure.com/openai'],
    ['https://gateway.example.com/aoai/openai/v1', 'https://gateway.example.com/aoai/openai/v1'],
  ])('%s → %s', (input, baseURL) => {
    expect(azureEndpoint(input)).toEqual({ baseURL });
  });

  it('moves a pasted api-version into apiVersion', () => {
    expect(azureEndpoint('https://res.openai.azure.com/openai?api-version=2025-04-01-preview')).toEqual({
      baseURL: 'https://res.openai.azure.com/openai',
      apiVersion: '2025-04-01-preview',
    });
  });
});

describe('azure_openai backend through the Responses API', () => {
  it('streams text from /openai/v1/responses with the deployment as model and an api-key header', async () => {
    const seen = routeAzureHostToFake();
    fake.server.enqueue({ text: 'Hello from Azure.', chunkSize: 6 });
    const parts = await collect(backend({ baseUrl: 'https://myres.openai.azure.com' }).stream(request()));
    expect(texts(parts)).toEqual(['Hello ', 'from A', 'zure.']);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    expect(seen.map((s) => s.url)).toEqual([
      'https://myres.openai.azure.com/openai/v1/responses?api-version=v1',
    ]);
    expect(seen[0]?.headers.get('api-key')).toBe(API_KEY);
    expect(seen[0]?.headers.has('authorization')).toBe(false);
    const recorded = fake.server.requests[0];
    expect(recorded).toMatchObject({ path: '/openai/v1/responses', hasAuthorization: true });
    expect(recorded?.body).toMatchObject({ model: 'my-gpt-deployment', stream: true });
    expect(recorded?.view?.model).toBe('my-gpt-deployment');
  });

  it('uses a versioned endpoint as is, and an api version from provider_options', async () => {
    const seen = routeAzureHostToFake();
    fake.server.enqueue({ text: 'a' }, { text: 'b' });
    await collect(backend({ baseUrl: 'https://myres.openai.azure.com/openai/v1' }).stream(request()));
    await collect(
      backend({
        baseUrl: 'https://myres.openai.azure.com/openai',
        providerOptions: { apiVersion: '2025-04-01-preview', store: false },
      }).stream(request()),
    );
    expect(seen.map((s) => s.url)).toEqual([
      'https://myres.openai.azure.com/openai/v1/responses',
      'https://myres.openai.azure.com/openai/v1/responses?api-version=2025-04-01-preview',
    ]);
    expect(fake.server.requests[1]?.body?.store).toBe(false);
    expect(fake.server.requests[1]?.body).not.toHaveProperty('apiVersion');
  });

  it('reaches a non-Azure host (gateway, fake) at <base_url>/responses', async () => {
    fake.server.enqueue({ text: 'ok' });
    await collect(backend().stream(request()));
    expect(fake.server.requests[0]).toMatchObject({ path: '/openai/v1/responses', hasAuthorization: true });
  });

  it('maps features for a deployment name the SDK cannot recognise as a reasoning model', async () => {
    fake.server.enqueue({
      toolCalls: [fakeWebSearch('azure news', { id: 'ws_7' })],
      reasoning: 'plan',
      text: 'Done.',
    });
    const parts = await collect(
      backend({
        features: { reasoning: { effort: 'low', summary: 'auto' }, webSearch: true, codeExecution: true },
      }).stream(request()),
    );
    expect(fake.server.requests[0]?.body).toMatchObject({
      reasoning: { effort: 'low', summary: 'auto' },
      tools: [{ type: 'web_search' }, { type: 'code_interpreter', container: { type: 'auto' } }],
    });
    expect(parts.filter((p) => p.type === 'reasoning-delta').map((p) => p.type)).toHaveLength(1);
    expect(parts.filter((p) => p.type === 'provider-tool-call')).toEqual([
      { type: 'provider-tool-call', callId: 'ws_7', toolName: 'web_search', input: {} },
    ]);
    expect(parts.find((p) => p.type === 'provider-tool-result')).toMatchObject({
      callId: 'ws_7',
      isError: false,
    });
    expect(texts(parts).join('')).toBe('Done.');
  });

  it('without an API key sends no credential and never reads AZURE_API_KEY', async () => {
    vi.stubEnv('AZURE_API_KEY', 'from-the-environment');
    const seen = routeAzureHostToFake();
    fake.server.enqueue({ text: 'ok' });
    await collect(
      backend({ apiKey: undefined, baseUrl: 'https://myres.openai.azure.com' }).stream(request()),
    );
    expect(seen[0]?.headers.has('api-key')).toBe(false);
    expect(fake.server.requests[0]?.hasAuthorization).toBe(false);
  });

  it('401: non-retryable ProviderError with the provider message and without the key', async () => {
    fake.server.enqueue({
      status: 401,
      body: { error: { code: '401', message: `Access denied due to invalid subscription key ${API_KEY}.` } },
    });
    const error = await collect(backend().stream(request())).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ProviderError);
    const providerError = error as ProviderError;
    expect(providerError).toMatchObject({ status: 401, retryable: false, provider: 'azure_openai' });
    expect(providerError.message).toMatch(/^azure_openai: HTTP 401 Unauthorized: Access denied/);
    expect(providerError.message).not.toContain(API_KEY);
  });
});
