import {
  APICallError,
  EmptyResponseBodyError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import type { PartReader } from '../ai-sdk/read-stream-parts.js';
import { ChatStreamParts } from './chat-stream-parts.js';
import { SseData } from './sse-data.js';

/** Opens one streamed call and reads its parts. */
export type OpenChatStream = (
  call: LanguageModelV3CallOptions,
) => Promise<PartReader<LanguageModelV3StreamPart>>;

type FailedResponseHandler = (options: {
  response: Response;
  url: string;
  requestBodyValues: unknown;
}) => PromiseLike<{ value: APICallError }>;

/**
 * What the lean reader takes from `@ai-sdk/openai-compatible`'s chat model: its request builder and its
 * connection. Not the package's public API: checked for, so that a version without them falls back to
 * the model's own `doStream` (package.json pins the version these were read from).
 */
interface ChatModelInternals {
  modelId: string;
  getArgs(options: LanguageModelV3CallOptions): PromiseLike<{ args: Record<string, unknown> }>;
  transformRequestBody(args: Record<string, unknown>): Record<string, unknown>;
  failedResponseHandler: FailedResponseHandler;
  config: {
    url(options: { path: string; modelId: string }): string;
    headers(): Record<string, string | undefined>;
    fetch?: typeof fetch;
    includeUsage?: boolean;
  };
}

function internalsOf(model: LanguageModelV3): ChatModelInternals | null {
  const m = model as unknown as Partial<ChatModelInternals>;
  const { config } = m;
  return typeof m.getArgs === 'function' &&
    typeof m.transformRequestBody === 'function' &&
    typeof m.failedResponseHandler === 'function' &&
    typeof config?.url === 'function' &&
    typeof config.headers === 'function'
    ? (m as ChatModelInternals)
    : null;
}

const FETCH_FAILED = new Set(['fetch failed', 'failed to fetch']);

/**
 * A reader of an OpenAI Chat Completions stream that does without the AI SDK's stream pipeline (four
 * web-stream stages and a schema validation per chunk, ≈100 KB allocated per call and ≈16 KB per streamed
 * chunk on Node 20): the same request (the SDK builds it), the same errors, and the same parts — read
 * from the response body with one reader, a text decoder and {@link SseData}. Null when `model` is not
 * a chat model of the pinned `@ai-sdk/openai-compatible` (callers then use its `doStream`).
 */
export function leanChatStream(model: LanguageModelV3): OpenChatStream | null {
  const sdk = internalsOf(model);
  return sdk === null ? null : (call) => open(sdk, call);
}

async function open(
  sdk: ChatModelInternals,
  call: LanguageModelV3CallOptions,
): Promise<PartReader<LanguageModelV3StreamPart>> {
  const { args } = await sdk.getArgs({ ...call });
  const body = sdk.transformRequestBody({
    ...args,
    stream: true,
    stream_options: sdk.config.includeUsage ? { include_usage: true } : undefined,
  });
  const url = sdk.config.url({ path: '/chat/completions', modelId: sdk.modelId });
  const headers = requestHeaders({
    'Content-Type': 'application/json',
    ...sdk.config.headers(),
    ...call.headers,
  });
  let response: Response;
  try {
    response = await (sdk.config.fetch ?? globalThis.fetch)(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      ...(call.abortSignal ? { signal: call.abortSignal } : {}),
    });
  } catch (error) {
    throw fetchError(error, url, body);
  }
  if (!response.ok) throw await failure(sdk, response, url, body);
  if (response.body === null) {
    throw new APICallError({
      message: 'Failed to process successful response',
      cause: new EmptyResponseBodyError({}),
      statusCode: response.status,
      url,
      responseHeaders: Object.fromEntries(response.headers),
      requestBodyValues: body,
    });
  }
  return new ChatPartReader(response.body.getReader());
}

/** As the AI SDK sends them: lower-case names, no empty values, and the runtime named in user-agent. */
function requestHeaders(headers: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) if (value != null) out[key.toLowerCase()] = value;
  out['user-agent'] = [out['user-agent'], `runtime/node.js/${process.version}`].filter(Boolean).join(' ');
  return out;
}

/** A connection that failed, as the AI SDK reports it ("Cannot connect to API: …", retryable). */
function fetchError(error: unknown, url: string, body: unknown): unknown {
  if (
    error instanceof TypeError &&
    FETCH_FAILED.has(error.message.toLowerCase()) &&
    error.cause !== null &&
    error.cause !== undefined
  ) {
    const cause = error.cause as { message?: unknown };
    return new APICallError({
      message: `Cannot connect to API: ${String(cause.message)}`,
      cause,
      url,
      requestBodyValues: body,
      isRetryable: true,
    });
  }
  return error;
}

/** The provider's error for a status that is not 2xx, read by the SDK model's own handler. */
async function failure(sdk: ChatModelInternals, response: Response, url: string, body: unknown) {
  try {
    return (await sdk.failedResponseHandler({ response, url, requestBodyValues: body })).value;
  } catch (error) {
    if (APICallError.isInstance(error) || (error instanceof Error && error.name === 'AbortError'))
      return error;
    return new APICallError({
      message: 'Failed to process error response',
      cause: error,
      statusCode: response.status,
      url,
      responseHeaders: Object.fromEntries(response.headers),
      requestBodyValues: body,
    });
  }
}

/** Reads parts off the response body as they are asked for: no stream stages, no promise per part. */
class ChatPartReader implements PartReader<LanguageModelV3StreamPart> {
  private readonly decoder = new TextDecoder();
  private readonly sse = new SseData();
  private readonly queue: LanguageModelV3StreamPart[] = [];
  private readonly parts = new ChatStreamParts((part) => this.queue.push(part));
  private next = 0;
  private ended = false;

  constructor(private readonly body: ReadableStreamDefaultReader<Uint8Array>) {}

  async read(): ReturnType<PartReader<LanguageModelV3StreamPart>['read']> {
    while (this.next === this.queue.length) {
      if (this.ended) return { done: true, value: undefined };
      this.queue.length = 0;
      this.next = 0;
      const { done, value } = await this.body.read();
      const text = done ? this.decoder.decode() : this.decoder.decode(value, { stream: true });
      for (const data of this.sse.push(text)) this.parts.data(data);
      if (done) {
        this.ended = true;
        this.parts.end();
      }
    }
    return { done: false, value: this.queue[this.next++] as LanguageModelV3StreamPart };
  }

  cancel(reason?: unknown): Promise<void> {
    return this.body.cancel(reason);
  }
}
