import { describe, expect, it } from 'vitest';
import { geminiDialect, type FakeGeminiRequestBody } from '../../testing/fake-server/gemini.js';
import type { Backend, BackendSettings } from '../../types/backend.js';
import { ProviderError } from '../../types/errors.js';
import type { ChatMessage, ToolDefinition } from '../../types/messages.js';
import {
  collect,
  failure,
  lookupTool,
  request,
  lookupHistory,
  textOf,
  useDialectServer,
} from '../backend.test-support.js';
import { geminiBackend } from './index.js';

const API_KEY = 'AIzaSy-test-secret-0123456789';
const MODEL = 'gemini-2.5-flash';
const fake = useDialectServer<FakeGeminiRequestBody>([geminiDialect]);

function backend(overrides: Partial<BackendSettings> = {}): Backend {
  return geminiBackend.create({
    type: 'gemini',
    model: MODEL,
    baseUrl: `${fake.server.origin}/v1beta`,
    apiKey: API_KEY,
    providerOptions: {},
    ...overrides,
  });
}

const voteTool: ToolDefinition = {
  name: 'vote',
  description: 'Vote for the best answer.',
  parameters: {
    type: 'object',
    properties: {
      agent_id: { type: 'string', enum: ['agent1', 'agent2'], description: 'Whose answer.' },
      reason: { type: 'string' },
    },
    required: ['agent_id', 'reason'],
    additionalProperties: false,
  },
};

describe('gemini backend through the AI SDK', () => {
  it('streams text deltas in order and ends with one finish part', async () => {
    fake.server.enqueue({ text: 'The quick brown fox jumps.', chunkSize: 5 });
    const parts = await collect(backend().stream(request()));
    expect(textOf(parts, 'text-delta')).toEqual(['The q', 'uick ', 'brown', ' fox ', 'jumps', '.']);
    expect(parts.filter((p) => p.type === 'finish')).toHaveLength(1);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('streams thought parts as reasoning, before and apart from the text', async () => {
    fake.server.enqueue({ reasoning: 'think first', text: 'answer', chunkSize: 6 });
    const parts = await collect(backend().stream(request()));
    expect(textOf(parts, 'reasoning-delta')).toEqual(['think ', 'first']);
    expect(textOf(parts, 'text-delta')).toEqual(['answer']);
    const lastReasoning = parts.findLastIndex((p) => p.type === 'reasoning-delta');
    expect(lastReasoning).toBeLessThan(parts.findIndex((p) => p.type === 'text-delta'));
  });

  it('turns a functionCall into a tool call with its arguments', async () => {
    fake.server.enqueue({
      toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent2', reason: 'complete' } }],
    });
    const parts = await collect(backend().stream(request({ tools: [voteTool] })));
    expect(parts.filter((p) => p.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        call: { id: expect.any(String), name: 'vote', arguments: { agent_id: 'agent2', reason: 'complete' } },
      },
    ]);
    // Gemini says STOP for a function-call turn; the SDK reports tool-calls from the parts.
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
  });

  it('yields text and two function calls from one response, keeping ids distinct', async () => {
    fake.server.enqueue({
      text: 'Checking both.',
      toolCalls: [
        { name: 'lookup', arguments: { query: 'a' } },
        { name: 'lookup', arguments: { query: 'b' }, id: 'fc_given' },
      ],
    });
    const parts = await collect(backend().stream(request({ tools: [lookupTool] })));
    expect(textOf(parts, 'text-delta').join('')).toBe('Checking both.');
    const calls = parts.flatMap((p) => (p.type === 'tool-call' ? [p.call] : []));
    expect(calls.map((c) => c.arguments)).toEqual([{ query: 'a' }, { query: 'b' }]);
    expect(calls[1]?.id).toBe('fc_given');
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
  });

  it('reports usage: thoughtsTokenCount as reasoning, cachedContentTokenCount as cached', async () => {
    fake.server.enqueue({
      reasoning: 'hmm',
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

  it('sends the model in the path, systemInstruction, history with functionCall/functionResponse, and the vote schema', async () => {
    fake.server.enqueue({ text: 'done' });
    const history = lookupHistory();
    await collect(
      backend().stream(request({ messages: history, tools: [lookupTool, voteTool], toolChoice: 'required' })),
    );
    const recorded = fake.server.requests[0];
    expect(recorded?.path).toBe(`/v1beta/models/${MODEL}:streamGenerateContent`);
    expect(recorded?.view).toMatchObject({
      dialect: 'gemini',
      model: MODEL,
      system: 'You are agent 1.',
      toolNames: ['lookup', 'vote'],
      votableIds: ['agent1', 'agent2'],
      stream: true,
    });
    expect(recorded?.view?.text).toBe('Find it.\nSearching.\nfound 3 results');
    const body = recorded?.body;
    expect(body?.systemInstruction).toEqual({ parts: [{ text: 'You are agent 1.' }] });
    expect(body?.contents).toEqual([
      { role: 'user', parts: [{ text: 'Find it.' }] },
      {
        role: 'model',
        parts: [
          { text: 'Searching.' },
          { functionCall: { id: 'call_a', name: 'lookup', args: { query: 'q' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'call_a',
              name: 'lookup',
              response: { name: 'lookup', content: 'found 3 results' },
            },
          },
        ],
      },
    ]);
    // JSON Schema becomes Gemini's OpenAPI subset: `additionalProperties` goes, the enum stays.
    expect(body?.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'lookup',
            description: 'Looks something up.',
            parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
          },
          {
            name: 'vote',
            description: 'Vote for the best answer.',
            parameters: {
              type: 'object',
              properties: {
                agent_id: { type: 'string', enum: ['agent1', 'agent2'], description: 'Whose answer.' },
                reason: { type: 'string' },
              },
              required: ['agent_id', 'reason'],
            },
          },
        ],
      },
    ]);
    expect(body?.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
  });

  it('sends a system message that comes after the conversation started as a user turn', async () => {
    fake.server.enqueue({ text: 'ok' });
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Q' },
      { role: 'assistant', content: 'A' },
      { role: 'system', content: 'New answers are in.' },
    ];
    await collect(backend().stream(request({ messages })));
    const body = fake.server.requests[0]?.body;
    expect(body?.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
    expect(body?.contents?.at(-1)).toEqual({ role: 'user', parts: [{ text: 'New answers are in.' }] });
  });

  it('forwards temperature, maxOutputTokens, thinkingConfig from features, provider options and headers', async () => {
    fake.server.enqueue({ text: 'ok' });
    const custom = backend({
      temperature: 0.3,
      maxTokens: 256,
      headers: { 'x-team': 'massgen' },
      features: { thinking: { budgetTokens: 1024, includeThoughts: true } },
      providerOptions: {
        thinkingConfig: { includeThoughts: false, thinkingLevel: 'low' },
        mediaResolution: 'MEDIA_RESOLUTION_LOW',
      },
    });
    await collect(custom.stream(request()));
    const recorded = fake.server.requests[0];
    expect(recorded?.body?.generationConfig).toEqual({
      temperature: 0.3,
      maxOutputTokens: 256,
      // Typed features win field by field over the flat bag; the bag's other fields stay.
      thinkingConfig: { thinkingBudget: 1024, includeThoughts: true, thinkingLevel: 'low' },
      mediaResolution: 'MEDIA_RESOLUTION_LOW',
    });
    expect(recorded?.headers['x-team']).toBe('massgen');
  });

  it('maps reasoning effort to thinkingLevel and sends no thinkingConfig when nothing asks for one', async () => {
    fake.server.enqueue({ text: 'ok' }, { text: 'ok' });
    await collect(
      backend({ model: 'gemini-3-pro-preview', features: { reasoning: { effort: 'high' } } }).stream(
        request(),
      ),
    );
    await collect(backend().stream(request()));
    expect(fake.server.requests[0]?.body?.generationConfig?.thinkingConfig).toEqual({
      thinkingLevel: 'high',
    });
    expect(fake.server.requests[1]?.body?.generationConfig?.thinkingConfig).toBeUndefined();
  });

  it('sends the key as x-goog-api-key (never in the URL), and no key header without a key', async () => {
    fake.server.enqueue({ text: 'ok' }, { text: 'ok' });
    await collect(backend().stream(request()));
    await collect(backend({ apiKey: undefined }).stream(request()));
    expect(fake.server.requests[0]?.hasAuthorization).toBe(true);
    expect(fake.server.requests[0]?.headers['x-goog-api-key']).toBeUndefined();
    expect(fake.server.requests[1]?.hasAuthorization).toBe(false);
  });
});

describe('gemini backend errors', () => {
  it('429 RESOURCE_EXHAUSTED with retry-after: retryable, retryAfterMs, Google message', async () => {
    fake.server.enqueue({
      status: 429,
      headers: { 'retry-after': '7' },
      body: {
        error: {
          code: 429,
          message: 'Resource has been exhausted (e.g. check quota).',
          status: 'RESOURCE_EXHAUSTED',
        },
      },
    });
    const error = (await failure(backend().stream(request()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'gemini', status: 429, retryable: true, retryAfterMs: 7000 });
    expect(error.message).toBe(
      'gemini: HTTP 429 Too Many Requests: Resource has been exhausted (e.g. check quota).',
    );
  });

  it('503 UNAVAILABLE: retryable, and the SDK does not retry on its own', async () => {
    fake.server.enqueue({ status: 503 });
    const error = (await failure(backend().stream(request()))) as ProviderError;
    expect(error).toMatchObject({ status: 503, retryable: true });
    expect(error.message).toBe('gemini: HTTP 503 Service Unavailable: fake server: scripted HTTP 503');
    expect(fake.server.requests).toHaveLength(1);
  });

  it.each([
    [400, 'INVALID_ARGUMENT', `API key not valid. Please pass a valid API key. (${API_KEY})`, 'Bad Request'],
    [403, 'PERMISSION_DENIED', "Method doesn't allow unregistered callers.", 'Forbidden'],
  ])('%i %s: non-retryable with the provider message, never the key', async (status, name, message, text) => {
    fake.server.enqueue({ status, body: { error: { code: status, message, status: name } } });
    const error = (await failure(backend().stream(request()))) as ProviderError;
    expect(error).toMatchObject({ status, retryable: false });
    expect(error.message).toBe(`gemini: HTTP ${status} ${text}: ${message.replace(API_KEY, '***')}`);
    expect(error.message).not.toContain(API_KEY);
  });

  it('abort mid-stream rejects promptly with the abort reason after the deltas already yielded', async () => {
    fake.server.enqueue({ text: 'one two three four five six', chunkSize: 4, delayMs: 40 });
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
    expect(texts).toEqual(['one ', 'two ']);
  });

  it('abort while the body hangs rejects promptly with the reason', async () => {
    fake.server.enqueue({ hang: true, sendHeaders: true });
    const controller = new AbortController();
    const reason = new Error('stop');
    setTimeout(() => controller.abort(reason), 100);
    expect(await failure(backend().stream(request({ signal: controller.signal })))).toBe(reason);
  });

  it('an empty vote enum fails before any request, as a non-retryable error', async () => {
    const emptyVote: ToolDefinition = {
      ...voteTool,
      parameters: { type: 'object', properties: { agent_id: { type: 'string', enum: [] } } },
    };
    const error = (await failure(backend().stream(request({ tools: [emptyVote] })))) as ProviderError;
    expect(error).toMatchObject({ retryable: false });
    expect(error.message).toContain('Google does not support this JSON Schema enum');
    expect(fake.server.requests).toHaveLength(0);
  });
});

describe('geminiBackend factory', () => {
  it('declares its keys, default URL and capabilities', () => {
    expect(geminiBackend.type).toBe('gemini');
    expect(geminiBackend.apiKeyEnvs({})).toEqual(['GOOGLE_API_KEY', 'GEMINI_API_KEY']);
    expect(geminiBackend.defaultBaseUrl({})).toBe('https://generativelanguage.googleapis.com/v1beta');
    expect(geminiBackend.capabilities).toEqual({
      streaming: true,
      tools: true,
      webSearch: true,
      codeExecution: true,
      reasoning: true,
      imagesIn: true,
    });
    expect(geminiBackend.keyOptional?.({ baseUrl: 'http://127.0.0.1:9999/v1beta' })).toBe(true);
    expect(geminiBackend.keyOptional?.({})).toBe(false);
  });
});
