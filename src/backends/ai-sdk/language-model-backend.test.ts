import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import type { ModelRequest, ModelStreamPart } from '../../types/backend.js';
import { ProviderError } from '../../types/errors.js';
import { createLanguageModelBackend } from './language-model-backend.js';

const usage = {
  inputTokens: { total: 12, noCache: 10, cacheRead: 2, cacheWrite: undefined },
  outputTokens: { total: 7, text: 4, reasoning: 3 },
};

/** A model that records its call options and streams `parts`. */
function modelStreaming(parts: LanguageModelV3StreamPart[]) {
  const calls: LanguageModelV3CallOptions[] = [];
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: 'test',
    modelId: 'test-model',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    doStream: (options) => {
      calls.push(options);
      return Promise.resolve({
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      });
    },
  };
  return { model, calls };
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function collect(stream: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const finish: LanguageModelV3StreamPart = {
  type: 'finish',
  usage,
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
};

describe('createLanguageModelBackend (the model called directly)', () => {
  it('sends the prompt, function and built-in tools, tool choice, settings and provider options', async () => {
    const { model, calls } = modelStreaming([finish]);
    const backend = createLanguageModelBackend({
      type: 'test',
      modelId: 'test-model',
      model,
      providerName: 'acme',
      temperature: 0.2,
      maxTokens: 99,
      providerOptions: { effort: 'low' },
      nestedProviderOptions: { acme: { extra: true }, other: { x: 1 } },
      providerTools: { web_search: { type: 'provider', id: 'acme.web_search', args: { max: 2 } } } as never,
    });
    await collect(
      backend.stream(
        request({
          messages: [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: 'q' },
            {
              role: 'assistant',
              content: '',
              toolCalls: [{ id: 'c1', name: 'vote', arguments: { agent_id: 'a' } }],
            },
            { role: 'tool', toolCallId: 'c1', toolName: 'vote', content: 'no', isError: true },
            { role: 'assistant', content: 'done' },
          ],
          tools: [{ name: 'vote', description: 'Vote', parameters: { type: 'object', properties: {} } }],
          toolChoice: 'required',
        }),
      ),
    );
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call.prompt).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'vote', input: { agent_id: 'a' } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'vote',
            output: { type: 'error-text', value: 'no' },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    ]);
    expect(call.tools).toEqual([
      {
        type: 'function',
        name: 'vote',
        description: 'Vote',
        inputSchema: { type: 'object', properties: {} },
      },
      { type: 'provider', name: 'web_search', id: 'acme.web_search', args: { max: 2 } },
    ]);
    expect(call.toolChoice).toEqual({ type: 'required' });
    expect(call).toMatchObject({ temperature: 0.2, maxOutputTokens: 99 });
    expect(call.providerOptions).toEqual({ acme: { effort: 'low', extra: true }, other: { x: 1 } });
  });

  it('offers no tools and no tool choice when there are none', async () => {
    const { model, calls } = modelStreaming([finish]);
    await collect(
      createLanguageModelBackend({ type: 't', modelId: 'm', model, providerName: 'p' }).stream(request()),
    );
    expect(calls[0]).not.toHaveProperty('tools');
    expect(calls[0]).not.toHaveProperty('toolChoice');
  });

  it("maps the model's parts: text, reasoning, tool calls (parsed, empty, unparseable), built-in tools, usage", async () => {
    const { model } = modelStreaming([
      { type: 'stream-start', warnings: [] },
      { type: 'reasoning-delta', id: 'r', delta: 'think' },
      { type: 'text-delta', id: 't', delta: '' },
      { type: 'text-delta', id: 't', delta: 'hello' },
      {
        type: 'tool-call',
        toolCallId: 's1',
        toolName: 'web_search',
        input: '{"q":"x"}',
        providerExecuted: true,
      },
      { type: 'tool-result', toolCallId: 's1', toolName: 'web_search', result: { hits: 1 } },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'vote', input: '{"agent_id":"a"}' },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'stop', input: '  ' },
      { type: 'tool-call', toolCallId: 'c3', toolName: 'vote', input: '{"agent_id":' },
      finish,
    ]);
    const parts = await collect(
      createLanguageModelBackend({ type: 't', modelId: 'm', model, providerName: 'p' }).stream(request()),
    );
    expect(parts).toEqual([
      { type: 'reasoning-delta', text: 'think' },
      { type: 'text-delta', text: 'hello' },
      { type: 'provider-tool-call', callId: 's1', toolName: 'web_search', input: { q: 'x' } },
      {
        type: 'provider-tool-result',
        callId: 's1',
        toolName: 'web_search',
        output: { hits: 1 },
        isError: false,
      },
      { type: 'tool-call', call: { id: 'c1', name: 'vote', arguments: { agent_id: 'a' } } },
      { type: 'tool-call', call: { id: 'c2', name: 'stop', arguments: {} } },
      { type: 'tool-call', call: { id: 'c3', name: 'vote', arguments: '{"agent_id":' } },
      {
        type: 'finish',
        finishReason: 'tool-calls',
        usage: { inputTokens: 12, outputTokens: 7, reasoningTokens: 3, cachedInputTokens: 2 },
      },
    ]);
  });

  it('throws an error part as a ProviderError, and a stream without finish as a retryable one', async () => {
    const failing = modelStreaming([{ type: 'error', error: new Error('bad chunk') }]).model;
    await expect(
      collect(
        createLanguageModelBackend({ type: 't', modelId: 'm', model: failing, providerName: 'p' }).stream(
          request(),
        ),
      ),
    ).rejects.toThrow(/bad chunk/);
    const cut = modelStreaming([{ type: 'text-delta', id: 't', delta: 'partial' }]).model;
    const error = await collect(
      createLanguageModelBackend({ type: 't', modelId: 'm', model: cut, providerName: 'p' }).stream(
        request(),
      ),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      retryable: true,
      message: 't: the model stream ended without a finish event',
    });
  });
});
