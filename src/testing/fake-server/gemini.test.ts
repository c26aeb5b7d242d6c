import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { generateText, jsonSchema, tool } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { geminiDialect, geminiErrorBody, withGemini, type FakeGeminiRequestBody } from './gemini.js';
import { startFakeServer, type FakeServer } from './server.js';

let server: FakeServer<FakeGeminiRequestBody>;

beforeAll(async () => {
  server = await startFakeServer<FakeGeminiRequestBody>([geminiDialect]);
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
});

const PATH = '/v1beta/models/gemini-2.5-flash';
const BODY = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };

async function post(path: string, body: unknown = BODY): Promise<Response> {
  return fetch(`${server.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
    body: JSON.stringify(body),
  });
}

/** The JSON of each `data:` event of an SSE body. */
async function events(response: Response): Promise<unknown[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice('data: '.length)) as unknown);
}

describe('geminiDialect wire format', () => {
  it('streams GenerateContentResponse chunks: thoughts, text, then whole function calls with STOP and usage', async () => {
    server.enqueue({
      reasoning: 'plan',
      text: 'Hello',
      toolCalls: [
        { name: 'lookup', arguments: { query: 'a' } },
        { name: 'lookup', arguments: '{"query":"b"}', id: 'fc_1' },
      ],
      usage: { promptTokens: 10, completionTokens: 8, reasoningTokens: 3, cachedTokens: 4 },
    });
    const response = await post(`${PATH}:streamGenerateContent?alt=sse`);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const chunks = await events(response);
    const envelope = { modelVersion: 'gemini-2.5-flash', responseId: expect.stringMatching(/^fake-gemini-/) };
    const partial = { promptTokenCount: 10, totalTokenCount: 10 };
    expect(chunks).toEqual([
      {
        candidates: [{ content: { role: 'model', parts: [{ text: 'plan', thought: true }] }, index: 0 }],
        usageMetadata: partial,
        ...envelope,
      },
      {
        candidates: [{ content: { role: 'model', parts: [{ text: 'Hello' }] }, index: 0 }],
        usageMetadata: partial,
        ...envelope,
      },
      {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [
                { functionCall: { name: 'lookup', args: { query: 'a' } } },
                { functionCall: { id: 'fc_1', name: 'lookup', args: { query: 'b' } } },
              ],
            },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: {
          promptTokenCount: 10,
          candidatesTokenCount: 5,
          thoughtsTokenCount: 3,
          cachedContentTokenCount: 4,
          totalTokenCount: 18,
          promptTokensDetails: [{ modality: 'TEXT', tokenCount: 10 }],
        },
        ...envelope,
      },
    ]);
    expect(server.requests[0]).toMatchObject({
      path: `${PATH}:streamGenerateContent`,
      dialect: 'gemini',
      hasAuthorization: true,
    });
  });

  it('puts code execution parts before the text and grounding on the last chunk', async () => {
    server.enqueue(
      withGemini(
        { text: 'Done', chunkSize: 2 },
        {
          codeExecutions: [{ code: 'print(1)', output: '1\n' }],
          search: { queries: ['q'], sources: [{ url: 'https://a.example/x' }] },
        },
      ),
    );
    const chunks = (await events(await post(`${PATH}:streamGenerateContent?alt=sse`))) as Array<{
      candidates: Array<{
        content: { parts: unknown[] };
        groundingMetadata?: unknown;
        finishReason?: string;
      }>;
    }>;
    expect(chunks.map((c) => c.candidates[0]?.content.parts[0])).toEqual([
      { executableCode: { language: 'PYTHON', code: 'print(1)' } },
      { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1\n' } },
      { text: 'Do' },
      { text: 'ne' },
    ]);
    expect(chunks.slice(0, -1).every((c) => c.candidates[0]?.groundingMetadata === undefined)).toBe(true);
    expect(chunks.at(-1)?.candidates[0]).toMatchObject({
      finishReason: 'STOP',
      groundingMetadata: {
        webSearchQueries: ['q'],
        groundingChunks: [{ web: { uri: 'https://a.example/x', title: 'a.example' } }],
      },
    });
  });

  it('drops the connection after disconnectAfterChunks chunks', async () => {
    server.enqueue({ text: 'abcdef', chunkSize: 2, disconnectAfterChunks: 1 });
    const response = await post(`${PATH}:streamGenerateContent?alt=sse`);
    await expect(response.text()).rejects.toThrow();
  });

  it('answers :generateContent with one JSON GenerateContentResponse the SDK parses', async () => {
    server.enqueue(
      withGemini(
        { reasoning: 'hmm', text: 'It is 4.', usage: { promptTokens: 5, completionTokens: 4 } },
        { search: { queries: ['2+2'], sources: [{ url: 'https://math.example/', title: 'math' }] } },
      ),
    );
    const google = createGoogleGenerativeAI({ baseURL: `${server.origin}/v1beta`, apiKey: 'k' });
    const result = await generateText({
      model: google('gemini-2.5-flash'),
      prompt: 'What is 2+2?',
      maxRetries: 0,
    });
    expect(result.text).toBe('It is 4.');
    expect(result.reasoningText).toBe('hmm');
    expect(result.sources).toMatchObject([
      { sourceType: 'url', url: 'https://math.example/', title: 'math' },
    ]);
    expect(result.usage).toMatchObject({ inputTokens: 5, outputTokens: 4 });
    expect(server.requests[0]?.view).toMatchObject({ model: 'gemini-2.5-flash', stream: false });
  });

  it('answers :generateContent with function calls the SDK turns into tool calls', async () => {
    server.enqueue({ toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1' } }] });
    const google = createGoogleGenerativeAI({ baseURL: `${server.origin}/v1beta`, apiKey: 'k' });
    const vote = tool({ inputSchema: jsonSchema<{ agent_id: string }>({ type: 'object' }) });
    const result = await generateText({
      model: google('gemini-2.5-flash'),
      prompt: 'Vote',
      tools: { vote },
      maxRetries: 0,
    });
    expect(result.toolCalls.map((c) => [c.toolName, c.input])).toEqual([['vote', { agent_id: 'agent1' }]]);
    expect(result.finishReason).toBe('tool-calls');
  });

  it("uses Google's error body for scripted and unscripted errors", async () => {
    server.enqueue({ status: 429 });
    const limited = await post(`${PATH}:streamGenerateContent?alt=sse`);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({
      error: { code: 429, message: 'fake server: scripted HTTP 429', status: 'RESOURCE_EXHAUSTED' },
    });
    const unscripted = await post(`${PATH}:generateContent`);
    expect(unscripted.status).toBe(500);
    expect(await unscripted.json()).toMatchObject({ error: { code: 500, status: 'INTERNAL' } });
    expect(geminiErrorBody(403, 'no')).toEqual({
      error: { code: 403, message: 'no', status: 'PERMISSION_DENIED' },
    });
  });

  it('answers only Gemini routes', async () => {
    expect((await post('/v1/chat/completions')).status).toBe(404);
    expect(geminiDialect.matches('GET', `${PATH}:generateContent`)).toBe(false);
    expect(geminiDialect.matches('POST', '/v1beta/tunedModels/my-tune:generateContent')).toBe(true);
  });
});

describe('geminiDialect.view', () => {
  it('reads system, function names, the vote enum, message and function-response text', () => {
    const body: FakeGeminiRequestBody = {
      systemInstruction: { parts: [{ text: 'You are agent 1.' }, { text: 'Be brief.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Task' }] },
        { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 1 } } }] },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'lookup', response: { name: 'lookup', content: 'result text' } } },
          ],
        },
      ],
      tools: [
        { googleSearch: {} },
        {
          functionDeclarations: [
            { name: 'new_answer' },
            {
              name: 'vote',
              parameters: {
                type: 'object',
                properties: { agent_id: { type: 'string', enum: ['agent1', 'agent2'] } },
              },
            },
          ],
        },
      ],
    };
    expect(geminiDialect.view(body, `${PATH}:streamGenerateContent`)).toEqual({
      dialect: 'gemini',
      model: 'gemini-2.5-flash',
      system: 'You are agent 1.\nBe brief.',
      toolNames: ['new_answer', 'vote'],
      votableIds: ['agent1', 'agent2'],
      text: 'Task\nresult text',
      media: [],
      stream: true,
    });
  });

  it('reads the vote enum from parametersJsonSchema too (the SDK falls back to it for recursive schemas)', () => {
    const body: FakeGeminiRequestBody = {
      tools: [
        {
          functionDeclarations: [
            { name: 'vote', parametersJsonSchema: { properties: { agent_id: { enum: ['x'] } } } },
          ],
        },
      ],
    };
    expect(geminiDialect.view(body, `${PATH}:generateContent`)).toMatchObject({
      votableIds: ['x'],
      stream: false,
    });
  });
});
