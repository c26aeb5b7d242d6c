import type { ServerResponse } from 'node:http';

/** Token counts a scripted response reports; omitted counts are estimated from the text (cached and reasoning: 0). */
export interface FakeUsage {
  promptTokens?: number;
  completionTokens?: number;
  cachedTokens?: number;
  reasoningTokens?: number;
}

interface FakeResponseBase {
  /** Milliseconds to wait before each streamed chunk. */
  delayMs?: number;
  usage?: FakeUsage;
}

/** A plain answer, streamed in chunks of `chunkSize` characters (default 8). */
export interface FakeTextResponse extends FakeResponseBase {
  text: string;
  /** Streamed first as `delta.reasoning_content`, the way reasoning models on OpenAI-compatible servers do. */
  reasoning?: string;
  chunkSize?: number;
  /** Wire finish reason; default `stop`. */
  finishReason?: string;
  /** Destroys the connection after this many content chunks, to simulate a dropped stream. */
  disconnectAfterChunks?: number;
}

/** One tool call the fake model makes. A string `arguments` is sent verbatim (so it may be invalid JSON). */
export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown> | string;
  /** Defaults to `call_<request>_<n>`. */
  id?: string;
}

/** Tool calls streamed OpenAI-style: id and name first, then the arguments in several fragments. */
export interface FakeToolCallsResponse extends FakeResponseBase {
  toolCalls: FakeToolCall[];
  /** Text streamed before the tool calls. */
  text?: string;
}

/** An HTTP error. `body` defaults to OpenAI's `{"error":{"message":...}}` shape. */
export interface FakeErrorResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Accepts the request and never answers until the client disconnects or the server closes. */
export interface FakeHangResponse {
  hang: true;
  /** Send `200` and SSE headers first, so the client hangs while reading the body rather than waiting for headers. */
  sendHeaders?: boolean;
}

/** What the fake server does with one chat-completion request. */
export type FakeResponse = FakeTextResponse | FakeToolCallsResponse | FakeErrorResponse | FakeHangResponse;

/** The parts of an OpenAI chat-completion request body tests usually inspect; everything else is kept too. */
export interface FakeChatRequestBody {
  model?: string;
  messages?: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  tool_choice?: unknown;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  temperature?: number;
  max_tokens?: number;
  [key: string]: unknown;
}

type Scripted = FakeTextResponse | FakeToolCallsResponse;

let responseCounter = 0;

/** OpenAI's error body shape. */
export function errorBody(
  message: string,
  type: string,
): { error: { message: string; type: string; code: null } } {
  return { error: { message, type, code: null } };
}

/** Writes a scripted answer as an SSE stream of `chat.completion.chunk`s ending with `data: [DONE]`. */
export async function writeSseResponse(
  res: ServerResponse,
  body: FakeChatRequestBody,
  response: Scripted,
): Promise<void> {
  const meta = responseMeta(body);
  let gone = false;
  res.on('close', () => {
    gone = true;
  });
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();

  const send = async (data: unknown): Promise<boolean> => {
    if (response.delayMs !== undefined && response.delayMs > 0) await sleep(response.delayMs);
    if (gone) return false;
    res.write(`data: ${JSON.stringify(data)}\n\n`);
    return true;
  };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): unknown => ({
    ...meta.envelope('chat.completion.chunk'),
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });

  if (!(await send(chunk({ role: 'assistant', content: '' })))) return;
  let contentChunks = 0;
  const limit = 'disconnectAfterChunks' in response ? response.disconnectAfterChunks : undefined;
  const sendContent = async (delta: Record<string, unknown>): Promise<boolean> => {
    if (limit !== undefined && contentChunks >= limit) {
      res.destroy();
      return false;
    }
    contentChunks += 1;
    return send(chunk(delta));
  };

  const chunkSize = 'chunkSize' in response && response.chunkSize !== undefined ? response.chunkSize : 8;
  if ('reasoning' in response && response.reasoning !== undefined) {
    for (const piece of splitBySize(response.reasoning, chunkSize)) {
      if (!(await sendContent({ reasoning_content: piece }))) return;
    }
  }
  for (const piece of splitBySize(response.text ?? '', chunkSize)) {
    if (!(await sendContent({ content: piece }))) return;
  }
  const calls = 'toolCalls' in response ? toolCallsOf(response, meta.index) : [];
  for (const [index, call] of calls.entries()) {
    const start = { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
    if (!(await sendContent({ tool_calls: [start] }))) return;
    for (const fragment of splitInto(call.arguments, 3)) {
      if (!(await sendContent({ tool_calls: [{ index, function: { arguments: fragment } }] }))) return;
    }
  }

  if (!(await send(chunk({}, finishReasonOf(response))))) return;
  if (body.stream_options?.include_usage === true) {
    if (
      !(await send({
        ...meta.envelope('chat.completion.chunk'),
        choices: [],
        usage: usageOf(body, response),
      }))
    ) {
      return;
    }
  }
  res.end('data: [DONE]\n\n');
}

/** A scripted answer as a non-streaming `chat.completion` object. */
export function chatCompletionJson(body: FakeChatRequestBody, response: Scripted): unknown {
  const meta = responseMeta(body);
  const calls = 'toolCalls' in response ? toolCallsOf(response, meta.index) : [];
  const text = response.text ?? '';
  return {
    ...meta.envelope('chat.completion'),
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: calls.length > 0 && text === '' ? null : text,
          ...('reasoning' in response && response.reasoning !== undefined
            ? { reasoning_content: response.reasoning }
            : {}),
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((c) => ({
                  id: c.id,
                  type: 'function',
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        },
        finish_reason: finishReasonOf(response),
      },
    ],
    usage: usageOf(body, response),
  };
}

function responseMeta(body: FakeChatRequestBody) {
  responseCounter += 1;
  const index = responseCounter;
  const created = Math.floor(Date.now() / 1000);
  const model = typeof body.model === 'string' ? body.model : 'fake-model';
  return {
    index,
    envelope: (object: string) => ({ id: `chatcmpl-fake-${index}`, object, created, model }),
  };
}

function toolCallsOf(response: FakeToolCallsResponse, responseIndex: number) {
  return response.toolCalls.map((call, i) => ({
    id: call.id ?? `call_${responseIndex}_${i}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
}

function finishReasonOf(response: Scripted): string {
  if ('toolCalls' in response && response.toolCalls.length > 0) return 'tool_calls';
  return 'finishReason' in response && response.finishReason !== undefined ? response.finishReason : 'stop';
}

function usageOf(body: FakeChatRequestBody, response: Scripted) {
  const usage = response.usage ?? {};
  const promptChars = JSON.stringify(body.messages ?? []).length;
  const outputChars =
    (response.text ?? '').length +
    ('reasoning' in response ? (response.reasoning ?? '').length : 0) +
    ('toolCalls' in response ? JSON.stringify(response.toolCalls).length : 0);
  const promptTokens = usage.promptTokens ?? Math.max(1, Math.ceil(promptChars / 4));
  const completionTokens = usage.completionTokens ?? Math.max(1, Math.ceil(outputChars / 4));
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
}

/** Splits by code points so a chunk never cuts a surrogate pair in half. */
function splitBySize(text: string, size: number): string[] {
  const chars = Array.from(text);
  const step = Math.max(1, Math.floor(size));
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += step) pieces.push(chars.slice(i, i + step).join(''));
  return pieces;
}

function splitInto(text: string, parts: number): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [];
  return splitBySize(text, Math.ceil(chars.length / Math.min(parts, chars.length)));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
