import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeWebSearch, openAIResponsesDialect } from './openai-responses.js';
import { startFakeServer, type FakeServer } from './server.js';

let server: FakeServer;

beforeAll(async () => {
  server = await startFakeServer([openAIResponsesDialect]);
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
});

type Event = { type: string; sequence_number: number; [key: string]: unknown };

function post(body: unknown, path = '/v1/responses'): Promise<Response> {
  return fetch(`${server.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-x' },
    body: JSON.stringify(body),
  });
}

/** Parses an SSE body, checking that every block's `event:` line names its data's `type`. */
async function sse(response: Response): Promise<Event[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const [eventLine, dataLine] = block.split('\n');
      const event = JSON.parse(dataLine?.replace(/^data: /, '') ?? '') as Event;
      expect(eventLine).toBe(`event: ${event.type}`);
      return event;
    });
}

const deltas = (events: Event[], type: string) =>
  events.filter((e) => e.type === type).map((e) => e.delta as string);

const lookup = { type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } };

describe('openAIResponsesDialect streaming', () => {
  it('streams a text message with the documented lifecycle, in sequence, with usage at the end', async () => {
    server.enqueue({
      text: 'abcdefghij',
      chunkSize: 4,
      usage: { promptTokens: 50, completionTokens: 9, cachedTokens: 40, reasoningTokens: 3 },
    });
    const response = await post({ model: 'gpt-x', stream: true, input: [{ role: 'user', content: 'hi' }] });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = await sse(response);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(deltas(events, 'response.output_text.delta')).toEqual(['abcd', 'efgh', 'ij']);
    const [firstDelta] = events.filter((e) => e.type === 'response.output_text.delta');
    expect(firstDelta).toMatchObject({ output_index: 0, content_index: 0 });
    expect(String(firstDelta?.item_id)).toMatch(/^msg_fake_\d+$/);
    expect(events[0]).toMatchObject({ response: { status: 'in_progress', model: 'gpt-x', output: [] } });
    expect(events.at(-1)?.response).toMatchObject({
      status: 'completed',
      output: [
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'abcdefghij' }] },
      ],
      usage: {
        input_tokens: 50,
        input_tokens_details: { cached_tokens: 40 },
        output_tokens: 9,
        output_tokens_details: { reasoning_tokens: 3 },
        total_tokens: 59,
      },
    });
  });

  it('streams reasoning summary deltas in a reasoning item before the message', async () => {
    server.enqueue({ reasoning: 'think hard', text: 'ok', chunkSize: 5 });
    const events = await sse(await post({ model: 'o-x', stream: true, input: 'q' }));
    expect(deltas(events, 'response.reasoning_summary_text.delta')).toEqual(['think', ' hard']);
    const added = events.filter((e) => e.type === 'response.output_item.added');
    expect(added.map((e) => [e.output_index, (e.item as { type: string }).type])).toEqual([
      [0, 'reasoning'],
      [1, 'message'],
    ]);
    const summaryDelta = events.find((e) => e.type === 'response.reasoning_summary_text.delta');
    expect(summaryDelta).toMatchObject({ output_index: 0, summary_index: 0 });
    expect(events.map((e) => e.type)).toContain('response.reasoning_summary_part.done');
  });

  it('streams function call arguments in several fragments, then done with the whole string', async () => {
    server.enqueue({
      toolCalls: [{ name: 'lookup', arguments: { query: 'multi-agent voting' }, id: 'call_9' }],
    });
    const events = await sse(await post({ model: 'm', stream: true, input: 'q', tools: [lookup] }));
    const added = events.find((e) => e.type === 'response.output_item.added');
    expect(added?.item).toMatchObject({
      type: 'function_call',
      call_id: 'call_9',
      name: 'lookup',
      arguments: '',
    });
    const fragments = deltas(events, 'response.function_call_arguments.delta');
    expect(fragments.length).toBeGreaterThan(1);
    expect(fragments.join('')).toBe('{"query":"multi-agent voting"}');
    expect(events.find((e) => e.type === 'response.function_call_arguments.done')).toMatchObject({
      arguments: '{"query":"multi-agent voting"}',
      output_index: 0,
    });
    expect(events.some((e) => e.type === 'response.output_text.delta')).toBe(false);
    expect(events.at(-1)?.type).toBe('response.completed');
  });

  it('renders a scripted web_search as a provider web_search_call only when the tool was offered', async () => {
    server.enqueue({
      toolCalls: [fakeWebSearch('massgen', { sources: ['https://example.com/a'] })],
      text: 'Found it.',
    });
    const offered = await sse(
      await post({ model: 'm', stream: true, input: 'q', tools: [{ type: 'web_search' }] }),
    );
    const items = offered.filter((e) => e.type === 'response.output_item.done').map((e) => e.item);
    expect(items).toMatchObject([
      {
        type: 'web_search_call',
        status: 'completed',
        action: {
          type: 'search',
          query: 'massgen',
          sources: [{ type: 'url', url: 'https://example.com/a' }],
        },
      },
      { type: 'message' },
    ]);
    expect(offered.map((e) => e.type)).toContain('response.web_search_call.searching');

    server.enqueue({ toolCalls: [fakeWebSearch('massgen')] });
    const plain = await sse(await post({ model: 'm', stream: true, input: 'q' }));
    const plainItems = plain.filter((e) => e.type === 'response.output_item.done').map((e) => e.item);
    expect(plainItems).toMatchObject([{ type: 'function_call', name: 'web_search' }]);
  });

  it('ends with response.incomplete for a non-stop finish reason', async () => {
    server.enqueue({ text: 'cut', finishReason: 'length' });
    const events = await sse(await post({ model: 'm', stream: true, input: 'q' }));
    expect(events.at(-1)).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    });
  });
});

describe('openAIResponsesDialect requests and JSON', () => {
  it('matches OpenAI and Azure paths and fills the request view', async () => {
    server.enqueue({ text: 'a' }, { text: 'b' }, { text: 'c' });
    const vote = {
      type: 'function',
      name: 'vote',
      parameters: {
        type: 'object',
        properties: { agent_id: { type: 'string', enum: ['agent_a', 'agent_b'] } },
      },
    };
    const body = {
      model: 'gpt-x',
      instructions: 'Be brief.',
      input: [
        { role: 'developer', content: 'You are agent 1.' },
        { role: 'user', content: [{ type: 'input_text', text: 'Question?' }] },
        { type: 'function_call', call_id: 'c1', name: 'lookup', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'tool said hi' },
      ],
      tools: [lookup, vote, { type: 'web_search' }],
    };
    await post(body);
    await post(body, '/openai/v1/responses');
    await post({ ...body, model: undefined }, '/openai/deployments/my-deploy/responses');
    expect(server.requests.map((r) => [r.dialect, r.path, r.hasAuthorization])).toEqual([
      ['openai-responses', '/v1/responses', true],
      ['openai-responses', '/openai/v1/responses', true],
      ['openai-responses', '/openai/deployments/my-deploy/responses', true],
    ]);
    expect(server.requests[0]?.view).toEqual({
      dialect: 'openai-responses',
      model: 'gpt-x',
      system: 'Be brief.\nYou are agent 1.',
      toolNames: ['lookup', 'vote'],
      votableIds: ['agent_a', 'agent_b'],
      text: 'Question?\ntool said hi',
      media: [],
      stream: false,
    });
    expect(server.requests[2]?.view?.model).toBe('my-deploy');
  });

  it('answers non-streaming requests with a response object', async () => {
    server.enqueue({ text: 'hello', reasoning: 'hmm', toolCalls: [{ name: 'lookup', arguments: { q: 1 } }] });
    const json = (await (await post({ model: 'm', input: 'q', tools: [lookup] })).json()) as Record<
      string,
      unknown
    >;
    expect(json).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'm',
      output: [
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'hmm' }] },
        { type: 'message', content: [{ type: 'output_text', text: 'hello' }] },
        { type: 'function_call', name: 'lookup', arguments: '{"q":1}' },
      ],
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
    });
  });

  it("answers errors in OpenAI's error shape", async () => {
    server.enqueue({ status: 429, headers: { 'retry-after': '3' } });
    const response = await post({ model: 'm', input: 'q', stream: true });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(await response.json()).toEqual({
      error: {
        message: 'fake server: scripted HTTP 429',
        type: 'rate_limit_error',
        param: null,
        code: 'rate_limit_exceeded',
      },
    });
  });
});
