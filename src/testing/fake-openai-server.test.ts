import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAIServer, type FakeOpenAIServer } from './fake-openai-server.js';

let server: FakeOpenAIServer;

beforeEach(async () => {
  server = await startFakeOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** The JSON payloads of an SSE body, plus whether it ended with `[DONE]`. */
async function sseEvents(
  response: Response,
): Promise<{ events: Array<Record<string, unknown>>; done: boolean }> {
  const text = await response.text();
  const datas = text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
  const done = datas.at(-1) === '[DONE]';
  return {
    events: datas.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d) as Record<string, unknown>),
    done,
  };
}

type Delta = {
  content?: string;
  tool_calls?: Array<{ index: number; id?: string; function: Record<string, string> }>;
};
const deltaOf = (event: Record<string, unknown>): Delta | undefined =>
  (event.choices as Array<{ delta: Delta }> | undefined)?.[0]?.delta;

describe('startFakeOpenAIServer', () => {
  it('listens on loopback with a /v1 base URL and lists models', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const models = (await (await fetch(`${server.url}/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toEqual(['fake-model']);
    expect(server.requests).toHaveLength(0);
  });

  it('streams text in chunks, then finish, then usage when asked, then [DONE]', async () => {
    server.enqueue({
      text: 'abcdefghij',
      chunkSize: 4,
      usage: { promptTokens: 7, cachedTokens: 2, reasoningTokens: 1 },
    });
    const response = await post({
      model: 'm',
      stream: true,
      stream_options: { include_usage: true },
      messages: [],
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const { events, done } = await sseEvents(response);
    expect(done).toBe(true);
    const text = events.map((e) => deltaOf(e)?.content ?? '');
    expect(text.filter((t) => t !== '')).toEqual(['abcd', 'efgh', 'ij']);
    const finish = events.find(
      (e) => (e.choices as Array<{ finish_reason: unknown }>)[0]?.finish_reason != null,
    );
    expect((finish?.choices as Array<{ finish_reason: string }>)[0]?.finish_reason).toBe('stop');
    expect(events.at(-1)).toMatchObject({
      choices: [],
      usage: {
        prompt_tokens: 7,
        prompt_tokens_details: { cached_tokens: 2 },
        completion_tokens_details: { reasoning_tokens: 1 },
      },
    });
  });

  it('paces a stream: firstDelayMs before the first event (time to first token), delayMs before each later one', async () => {
    server.enqueue({ text: 'abcdefgh', chunkSize: 4, firstDelayMs: 120, delayMs: 40 });
    const started = performance.now();
    const response = await post({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const reader = response.body!.getReader();
    const arrivals: number[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read())
      arrivals.push(performance.now() - started);
    // Lower bounds only: a slow machine may add time, never take it away. The role event comes first,
    // then two text chunks, the finish event and [DONE]: at least 120 + 3 × 40 ms in all.
    expect(arrivals[0]).toBeGreaterThanOrEqual(115);
    expect(arrivals.at(-1)!).toBeGreaterThanOrEqual(115 + 3 * 38);
  });

  it('omits the usage chunk when the request did not ask for it', async () => {
    server.enqueue({ text: 'hi' });
    const { events } = await sseEvents(await post({ stream: true, messages: [] }));
    expect(events.some((e) => 'usage' in e)).toBe(false);
  });

  it('streams tool calls with id and name first and arguments in fragments', async () => {
    server.enqueue({ toolCalls: [{ name: 'lookup', arguments: { query: 'massgen agents' } }] });
    const { events } = await sseEvents(await post({ stream: true, messages: [] }));
    const calls = events.flatMap((e) => deltaOf(e)?.tool_calls ?? []);
    expect(calls[0]).toMatchObject({
      index: 0,
      type: 'function',
      function: { name: 'lookup', arguments: '' },
    });
    expect(calls[0]?.id).toMatch(/^call_/);
    const fragments = calls.slice(1).map((c) => c.function.arguments);
    expect(fragments.length).toBeGreaterThan(1);
    expect(JSON.parse(fragments.join(''))).toEqual({ query: 'massgen agents' });
    const last = events.at(-1)?.choices as Array<{ finish_reason: string }>;
    expect(last[0]?.finish_reason).toBe('tool_calls');
  });

  it('answers non-streaming requests with a chat.completion object', async () => {
    server.enqueue({ toolCalls: [{ name: 'f', arguments: '{"a":1}' }], text: 'calling' });
    const json = (await (await post({ messages: [] })).json()) as Record<string, unknown>;
    expect(json).toMatchObject({
      object: 'chat.completion',
      choices: [
        {
          message: {
            role: 'assistant',
            content: 'calling',
            tool_calls: [{ function: { name: 'f', arguments: '{"a":1}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: expect.any(Number) },
    });
  });

  it('returns scripted HTTP errors with OpenAI-shaped bodies and headers', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after': '0' } });
    const response = await post({ messages: [] });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('0');
    expect(await response.json()).toMatchObject({ error: { message: expect.stringContaining('429') } });
  });

  it('answers 500 loudly and records the request when nothing is scripted', async () => {
    const response = await post({ messages: [{ role: 'user', content: 'x' }] });
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain('no scripted response');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.scripted).toBe(false);
  });

  it('takes queued responses first, then asks the handler with the body and request index', async () => {
    server.enqueue({ text: 'queued' });
    server.setHandler((body, index) => ({ text: `${String(body.messages?.[0]?.content)}#${index}` }));
    const first = (await (await post({ messages: [{ role: 'user', content: 'a' }] })).json()) as Completion;
    const second = (await (await post({ messages: [{ role: 'user', content: 'b' }] })).json()) as Completion;
    expect(first.choices[0]?.message.content).toBe('queued');
    expect(second.choices[0]?.message.content).toBe('b#1');
    expect(server.pendingResponses).toBe(0);
  });

  it('records bodies and headers but only the presence of Authorization', async () => {
    server.enqueue({ text: 'ok' }, { text: 'ok' });
    await post({ model: 'x', messages: [] }, { authorization: 'Bearer sk-do-not-record', 'x-custom': 'yes' });
    await post({ model: 'y', messages: [] });
    const [withKey, withoutKey] = server.requests;
    expect(withKey).toMatchObject({ method: 'POST', path: '/v1/chat/completions', hasAuthorization: true });
    expect(withKey?.body?.model).toBe('x');
    expect(withKey?.headers['x-custom']).toBe('yes');
    expect(JSON.stringify(withKey)).not.toContain('sk-do-not-record');
    expect(withoutKey?.hasAuthorization).toBe(false);
  });

  it('close() finishes even while a hanging response holds a connection open', async () => {
    server.enqueue({ hang: true, sendHeaders: true });
    const response = await post({ stream: true, messages: [] });
    expect(response.status).toBe(200);
    const reading = response.text().catch((error: unknown) => error);
    await server.close();
    expect(await reading).toBeInstanceOf(Error);
  });

  it('reset() forgets requests, queue and handler', async () => {
    server.enqueue({ text: 'unused' });
    server.setHandler(() => ({ text: 'h' }));
    await post({ messages: [] });
    server.reset();
    expect(server.requests).toHaveLength(0);
    expect(server.pendingResponses).toBe(0);
    expect((await post({ messages: [] })).status).toBe(500);
  });
});

interface Completion {
  choices: Array<{ message: { content: string | null } }>;
}
