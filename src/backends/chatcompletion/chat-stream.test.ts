import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import type { PartReader } from '../ai-sdk/read-stream-parts.js';
import { leanChatStream } from './chat-stream.js';

/**
 * The lean reader must give massgen the same parts as the SDK model's own `doStream` for the same
 * response: each body below goes through both, from the same fake `fetch` (no network).
 */
const CALL: LanguageModelV3CallOptions = {
  prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
};
/** The parts massgen reads (language-model-backend.ts); the SDK's others are start/end markers and metadata. */
const READ = new Set(['text-delta', 'reasoning-delta', 'tool-input-start', 'tool-call', 'error', 'finish']);

const sse = (...events: unknown[]): string =>
  events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`).join('');
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  id: 'c1',
  choices: [{ delta: d, finish_reason: finish }],
});
const usage = { prompt_tokens: 12, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 4 } };
const end = (reason = 'stop') => ({ id: 'c1', choices: [{ delta: {}, finish_reason: reason }], usage });

function model(body: string, init: ResponseInit = {}) {
  return createOpenAICompatible({
    name: 'test',
    baseURL: 'http://127.0.0.1:9/v1',
    includeUsage: true,
    // Pieces cut at odd places, as a network would: every 7 bytes.
    fetch: () => {
      const bytes = new TextEncoder().encode(body);
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.slice(i, i + 7));
          controller.close();
        },
      });
      return Promise.resolve(
        new Response(stream, { headers: { 'content-type': 'text/event-stream' }, ...init }),
      );
    },
  }).chatModel('m');
}

async function readAll(reader: PartReader<LanguageModelV3StreamPart>): Promise<LanguageModelV3StreamPart[]> {
  const parts: LanguageModelV3StreamPart[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

/** What massgen reads of the parts; generated ids numbered by first sight, errors by class and message. */
function comparable(parts: LanguageModelV3StreamPart[]): unknown[] {
  const ids = new Map<string, string>();
  const id = (value: string) => {
    if (!value.startsWith('call_')) ids.set(value, ids.get(value) ?? `generated-${ids.size}`);
    return ids.get(value) ?? value;
  };
  return parts
    .filter((p) => READ.has(p.type))
    .map((p) => {
      switch (p.type) {
        case 'tool-input-start':
          return { type: p.type, id: id(p.id), toolName: p.toolName };
        case 'tool-call':
          return { type: p.type, id: id(p.toolCallId), toolName: p.toolName, input: p.input };
        case 'error': {
          // A shape error's detail is the validator's own wording (zod's issues, or ours): not compared.
          const error = p.error as { name?: string; message?: string };
          const message =
            typeof error?.message === 'string' ? error.message.split('\nError message:')[0] : p.error;
          return { type: p.type, name: error?.name, message };
        }
        case 'finish':
          // `usage.raw` (the wire's usage object) is not read.
          return {
            type: p.type,
            finishReason: p.finishReason,
            in: p.usage.inputTokens,
            out: p.usage.outputTokens,
          };
        default:
          return p;
      }
    });
}

async function both(body: string, init?: ResponseInit) {
  const lean = leanChatStream(model(body, init));
  if (lean === null)
    throw new Error('the pinned @ai-sdk/openai-compatible no longer has what the lean reader uses');
  const ours = comparable(await readAll(await lean(CALL)));
  const { stream } = await model(body, init).doStream(CALL);
  const sdk = comparable(await readAll(stream.getReader()));
  return { ours, sdk };
}

const call = (index: number, fields: Record<string, unknown>) => ({ tool_calls: [{ index, ...fields }] });

const BODIES: Record<string, string> = {
  'text in pieces, then usage': sse(
    delta({ role: 'assistant', content: 'Hel' }),
    delta({ content: 'lo' }),
    end(),
  ),
  'reasoning_content, reasoning and text': sse(
    delta({ reasoning_content: 'think ' }),
    delta({ reasoning: 'more' }),
    delta({ content: 'answer' }),
    end(),
  ),
  'content as parts with thinking (Mistral)': sse(
    delta({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'hmm' }] }] }),
    delta({ content: [{ type: 'text', text: 'yes' }] }),
    end(),
  ),
  'two tool calls in fragments': sse(
    delta(call(0, { id: 'call_a', type: 'function', function: { name: 'vote', arguments: '{"agent' } })),
    delta(call(0, { function: { arguments: '_id":"a1"}' } })),
    delta(call(1, { id: 'call_b', type: 'function', function: { name: 'new_answer', arguments: '' } })),
    delta(call(1, { function: { arguments: '{"content":"x"}' } })),
    end('tool_calls'),
  ),
  'arguments before the name, no ids': sse(
    delta(call(0, { function: { arguments: '{"a":' } })),
    delta(call(0, { function: { name: 'f', arguments: '1}' } })),
    delta(call(1, { function: { name: 'g', arguments: '{}' } })),
    end('tool_calls'),
  ),
  'a repeated id and a new call on a finished index': sse(
    delta(call(0, { id: 'call_x', function: { name: 'f', arguments: '{"a":1}' } })),
    delta(call(0, { id: 'call_x', function: { name: 'f', arguments: '{"a":2}' } })),
    end('tool_calls'),
  ),
  'an error reported in the stream': sse(delta({ content: 'par' }), {
    error: { message: 'overloaded', code: 503 },
  }),
  'data that is not JSON': sse(delta({ content: 'a' }), '{not json', end()),
  'a chunk of the wrong shape': sse({ choices: 'nope' }, end()),
  'a stream without a finish reason': sse(delta({ content: 'cut' })),
  'a __proto__ key': sse('{"choices":[{"delta":{"content":"x","__proto__":{"polluted":true}}}]}', end()),
  'a constructor.prototype key': sse('{"choices":[],"constructor":{"prototype":{"polluted":true}}}', end()),
  'CRLF lines, comments and [DONE]': sse(delta({ content: 'ok' }), end())
    .replaceAll('\n', '\r\n')
    .concat(': keep-alive\r\n\r\ndata: [DONE]\r\n\r\n'),
  'unknown finish reason and no usage': sse(delta({ content: 'x' }, 'eos')),
};

describe('lean Chat Completions reader: the same parts as the SDK model', () => {
  for (const [name, body] of Object.entries(BODIES)) {
    it(name, async () => {
      const { ours, sdk } = await both(body);
      expect(ours).toEqual(sdk);
      expect(ours.length).toBeGreaterThan(0);
    });
  }

  it('names the field of a chunk of the wrong shape', async () => {
    const lean = leanChatStream(model(BODIES['a chunk of the wrong shape']!))!;
    const error = (await readAll(await lean(CALL))).find((p) => p.type === 'error');
    expect(String((error as { error: Error }).error.message)).toContain('choices: expected an array');
  });

  it('a 500 status: the same APICallError (status, message, retryable)', async () => {
    const body = JSON.stringify({ error: { message: 'server fell over', type: 'server_error' } });
    const lean = leanChatStream(
      model(body, { status: 500, headers: { 'content-type': 'application/json' } }),
    )!;
    const ours = await lean(CALL).then(
      () => null,
      (e: unknown) => e,
    );
    const sdk = await model(body, { status: 500, headers: { 'content-type': 'application/json' } })
      .doStream(CALL)
      .then(
        () => null,
        (e: unknown) => e,
      );
    const pick = (e: unknown) => {
      const { name, message, statusCode, isRetryable } = e as Record<string, unknown>;
      return { name, message, statusCode, isRetryable };
    };
    expect(pick(ours)).toEqual(pick(sdk));
    expect(pick(ours)).toMatchObject({ statusCode: 500, message: 'server fell over' });
  });

  it('is null for a model that is not a chat model of the pinned package', () => {
    expect(leanChatStream({} as never)).toBeNull();
  });
});
