import type { ServerResponse } from 'node:http';

/**
 * The vendor-neutral script of a fake model reply. Each wire dialect (OpenAI Chat, OpenAI
 * Responses, Anthropic Messages, Gemini…) renders the same script in its vendor's real format, so
 * one test handler can drive agents on different providers.
 */

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
  /** Milliseconds before the first chunk instead of `delayMs`: the model's time to first token. */
  firstDelayMs?: number;
  usage?: FakeUsage;
}

/** A plain answer, streamed in chunks of `chunkSize` characters (default 8). */
export interface FakeTextResponse extends FakeResponseBase {
  text: string;
  /** Reasoning streamed before the text, in the dialect's reasoning format. */
  reasoning?: string;
  chunkSize?: number;
  /** Wire finish reason; default: the dialect's normal stop reason. */
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

/** Tool calls, streamed the dialect's way (arguments in several fragments where the format allows). */
export interface FakeToolCallsResponse extends FakeResponseBase {
  toolCalls: FakeToolCall[];
  /** Text streamed before the tool calls. */
  text?: string;
  reasoning?: string;
}

/** An HTTP error. `body` defaults to the dialect's error shape with a generic message. */
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

/** What the fake server does with one model request. */
export type FakeResponse = FakeTextResponse | FakeToolCallsResponse | FakeErrorResponse | FakeHangResponse;

/** A reply that produces model output (not an error or a hang). */
export type ScriptedReply = FakeTextResponse | FakeToolCallsResponse;

let responseCounter = 0;

/** A process-wide counter for ids (`chatcmpl-fake-<n>`, `call_<n>_<i>`). */
export function nextResponseIndex(): number {
  responseCounter += 1;
  return responseCounter;
}

/** Tool calls with ids and arguments serialised, as every dialect needs them. */
export function toolCallsOf(response: ScriptedReply, responseIndex: number) {
  return ('toolCalls' in response ? response.toolCalls : []).map((call, i) => ({
    id: call.id ?? `call_${responseIndex}_${i}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
}

/** Token counts for a reply: scripted where given, else estimated from characters (4 per token). */
export function estimateUsage(promptChars: number, response: ScriptedReply) {
  const usage = response.usage ?? {};
  const outputChars =
    (response.text ?? '').length +
    (response.reasoning ?? '').length +
    ('toolCalls' in response ? JSON.stringify(response.toolCalls).length : 0);
  return {
    promptTokens: usage.promptTokens ?? Math.max(1, Math.ceil(promptChars / 4)),
    completionTokens: usage.completionTokens ?? Math.max(1, Math.ceil(outputChars / 4)),
    cachedTokens: usage.cachedTokens ?? 0,
    reasoningTokens: usage.reasoningTokens ?? 0,
  };
}

/** Splits by code points so a chunk never cuts a surrogate pair in half. */
export function splitBySize(text: string, size: number): string[] {
  const chars = Array.from(text);
  const step = Math.max(1, Math.floor(size));
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += step) pieces.push(chars.slice(i, i + step).join(''));
  return pieces;
}

/** Splits into at most `parts` pieces (for streaming tool arguments in fragments). */
export function splitInto(text: string, parts: number): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [];
  return splitBySize(text, Math.ceil(chars.length / Math.min(parts, chars.length)));
}

/** The text chunks of a reply: reasoning pieces, then text pieces. */
export function chunksOf(response: ScriptedReply): { reasoning: string[]; text: string[] } {
  const size = 'chunkSize' in response && response.chunkSize !== undefined ? response.chunkSize : 8;
  return {
    reasoning: splitBySize(response.reasoning ?? '', size),
    text: splitBySize(response.text ?? '', size),
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Writes a server-sent-event stream with the script's pacing: `delayMs` before each event, and a
 * dropped connection after `disconnectAfterChunks` content events. `send*` resolve false once the
 * client is gone (or the connection was dropped), so a dialect simply stops.
 */
export class SseWriter {
  private gone = false;
  private contentEvents = 0;
  private sent = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly response: ScriptedReply,
  ) {
    res.on('close', () => {
      this.gone = true;
    });
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.flushHeaders();
  }

  /** One event: `data: <json>` (with `event: <name>` first when given). */
  async send(data: unknown, event?: string): Promise<boolean> {
    const delay =
      this.sent++ === 0 ? (this.response.firstDelayMs ?? this.response.delayMs) : this.response.delayMs;
    if (delay !== undefined && delay > 0) await sleep(delay);
    if (this.gone) return false;
    this.res.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`);
    return true;
  }

  /** An event that carries model output; counts towards `disconnectAfterChunks`. */
  async sendContent(data: unknown, event?: string): Promise<boolean> {
    const limit = 'disconnectAfterChunks' in this.response ? this.response.disconnectAfterChunks : undefined;
    if (limit !== undefined && this.contentEvents >= limit) {
      this.res.destroy();
      this.gone = true;
      return false;
    }
    this.contentEvents += 1;
    return this.send(data, event);
  }

  /** Ends the stream, optionally with a raw final line (e.g. `data: [DONE]`). */
  end(raw = ''): void {
    if (!this.gone) this.res.end(raw);
  }
}
