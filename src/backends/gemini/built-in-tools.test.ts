import { describe, expect, it } from 'vitest';
import { geminiDialect, withGemini, type FakeGeminiRequestBody } from '../../testing/fake-server/gemini.js';
import type { Backend, BackendSettings, ModelRequest, ModelStreamPart } from '../../types/backend.js';
import type { ToolDefinition } from '../../types/messages.js';
import { request as baseRequest, collect, useDialectServer } from '../backend.test-support.js';
import { geminiBackend, geminiSupportsToolCombination } from './index.js';

const fake = useDialectServer<FakeGeminiRequestBody>([geminiDialect]);

function backend(overrides: Partial<BackendSettings> = {}): Backend {
  return geminiBackend.create({
    type: 'gemini',
    model: 'gemini-2.5-flash',
    baseUrl: `${fake.server.origin}/v1beta`,
    apiKey: 'test-key-0123',
    providerOptions: {},
    ...overrides,
  });
}

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest =>
  baseRequest({ messages: [{ role: 'user', content: 'What happened today?' }], ...overrides });

const newAnswerTool: ToolDefinition = {
  name: 'new_answer',
  description: 'Submit an answer.',
  parameters: {
    type: 'object',
    properties: { content: { type: 'string' } },
    required: ['content'],
    additionalProperties: false,
  },
};

const providerParts = (parts: ModelStreamPart[]) =>
  parts.filter((p) => p.type === 'provider-tool-call' || p.type === 'provider-tool-result');

describe('gemini built-in tools', () => {
  it('offers Google Search and code execution as Gemini tools', async () => {
    fake.server.enqueue({ text: 'ok' });
    await collect(backend({ features: { webSearch: true, codeExecution: true } }).stream(request()));
    expect(fake.server.requests[0]?.body?.tools).toEqual([{ googleSearch: {} }, { codeExecution: {} }]);
  });

  it('shows Google Search grounding as a provider google_search call and result before finish', async () => {
    fake.server.enqueue(
      withGemini(
        { text: 'Two things happened.', chunkSize: 10 },
        {
          search: {
            queries: ['news today'],
            sources: [
              { url: 'https://example.com/a', title: 'example.com' },
              { url: 'https://example.org/b' },
            ],
          },
        },
      ),
    );
    const parts = await collect(backend({ features: { webSearch: true } }).stream(request()));
    const shown = providerParts(parts);
    expect(shown).toEqual([
      {
        type: 'provider-tool-call',
        callId: expect.stringMatching(/^grounding_/),
        toolName: 'google_search',
        input: { queries: ['news today'] },
      },
      {
        type: 'provider-tool-result',
        callId: (shown[0] as { callId: string }).callId,
        toolName: 'google_search',
        output: {
          sources: [
            { url: 'https://example.com/a', title: 'example.com' },
            { url: 'https://example.org/b', title: 'example.org' },
          ],
        },
        isError: false,
      },
    ]);
    expect(parts.map((p) => p.type).slice(-3)).toEqual([
      'provider-tool-call',
      'provider-tool-result',
      'finish',
    ]);
    expect(parts.at(-1)).toMatchObject({ finishReason: 'stop' });
  });

  it('shows code execution as a provider code_execution call and result, in stream order', async () => {
    fake.server.enqueue(
      withGemini(
        { text: 'The sum is 10.' },
        { codeExecutions: [{ code: 'print(sum(range(5)))', output: '10\n' }] },
      ),
    );
    const parts = await collect(backend({ features: { codeExecution: true } }).stream(request()));
    const shown = providerParts(parts);
    expect(shown).toEqual([
      {
        type: 'provider-tool-call',
        callId: expect.any(String),
        toolName: 'code_execution',
        input: { language: 'PYTHON', code: 'print(sum(range(5)))' },
      },
      {
        type: 'provider-tool-result',
        callId: (shown[0] as { callId: string }).callId,
        toolName: 'code_execution',
        output: { outcome: 'OUTCOME_OK', output: '10\n' },
        isError: false,
      },
    ]);
    expect(parts.findIndex((p) => p.type === 'provider-tool-result')).toBeLessThan(
      parts.findIndex((p) => p.type === 'text-delta'),
    );
    // A provider-run tool is not a client tool call: the turn still ends as a plain stop.
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('before Gemini 3, built-in tools stay on and function tools go through the text (as MassGen does)', async () => {
    fake.server.enqueue({
      text: 'I looked it up: 42.\n```json\n{"tool": "new_answer", "arguments": {"content": "It is 42."}}\n```',
      chunkSize: 7,
    });
    const parts = await collect(
      backend({ features: { webSearch: true } }).stream(
        request({
          messages: [
            { role: 'system', content: 'You are careful.' },
            { role: 'user', content: 'What is 6 x 7?' },
            {
              role: 'assistant',
              content: 'Let me check.',
              toolCalls: [{ id: 'c1', name: 'lookup', arguments: { q: '6x7' } }],
            },
            { role: 'tool', toolCallId: 'c1', toolName: 'lookup', content: '42' },
          ],
          tools: [newAnswerTool],
        }),
      ),
    );
    const body = fake.server.requests[0]?.body;
    expect(body?.tools).toEqual([{ googleSearch: {} }]);
    const system = JSON.stringify(body?.systemInstruction);
    expect(system).toContain('You are careful.');
    expect(system).toContain('- new_answer: Submit an answer.');
    const contents = JSON.stringify(body?.contents);
    expect(contents).toContain('{\\"tool\\":\\"lookup\\",\\"arguments\\":{\\"q\\":\\"6x7\\"}}');
    expect(contents).toContain('Result of lookup:\\n42');
    expect(contents).not.toContain('functionCall');
    const text = parts.flatMap((p) => (p.type === 'text-delta' ? [p.text] : [])).join('');
    expect(text).toBe('I looked it up: 42.');
    expect(parts.filter((p) => p.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        call: {
          id: expect.stringMatching(/^prompted_/),
          name: 'new_answer',
          arguments: { content: 'It is 42.' },
        },
      },
    ]);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
  });

  it('before Gemini 3 without built-in tools, function tools are declared as usual', async () => {
    fake.server.enqueue({ text: 'ok' });
    await collect(backend().stream(request({ tools: [newAnswerTool] })));
    expect(fake.server.requests[0]?.body?.tools?.[0]?.functionDeclarations?.map((d) => d.name)).toEqual([
      'new_answer',
    ]);
  });

  it('on Gemini 3, a call offers Google Search next to the function tools', async () => {
    fake.server.enqueue({ text: 'ok' });
    await collect(
      backend({ model: 'gemini-3-pro-preview', features: { webSearch: true } }).stream(
        request({ tools: [newAnswerTool], toolChoice: 'auto' }),
      ),
    );
    const body = fake.server.requests[0]?.body;
    expect(body?.tools?.[0]).toEqual({ googleSearch: {} });
    expect(body?.tools?.[1]?.functionDeclarations?.map((d) => d.name)).toEqual(['new_answer']);
    expect(body?.toolConfig).toMatchObject({ includeServerSideToolInvocations: true });
  });
});

describe('geminiSupportsToolCombination', () => {
  it.each([
    ['gemini-3-pro-preview', true],
    ['gemini-3-flash-preview', true],
    ['models/gemini-3.5-flash', true],
    ['gemini-2.5-flash', false],
    ['gemini-2.0-flash', false],
    ['gemini-1.5-pro', false],
    ['gemini-pro', false],
    ['gemma-3-27b-it', false],
  ])('%s → %s', (model, expected) => {
    expect(geminiSupportsToolCombination(model)).toBe(expected);
  });
});
