import { STATUS_CODES } from 'node:http';
import { APICallError } from '@ai-sdk/provider';
import { ProviderError } from '../../types/errors.js';

/** What the error mapper needs to know about the call that failed. */
export interface ProviderErrorContext {
  /** Our backend `type`, used as the message prefix and `ProviderError.provider`. */
  provider: string;
  /** Named in network-failure messages; credentials and query strings are stripped. */
  baseUrl?: string;
  /** Values that must never appear in a message (API keys); replaced by `***`. */
  secrets?: readonly string[];
  /** The provider's response had begun (status and headers received) when the call failed. */
  responseStarted?: boolean;
}

const RETRYABLE_STATUSES = new Set([408, 409, 429]);
const FINAL_STATUSES = new Set([400, 401, 403, 404, 422]);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
/** Failures to connect at all: the request never reached the provider. */
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const NETWORK_MESSAGE =
  /fetch failed|failed to fetch|socket hang up|terminated|other side closed|cannot connect to api/i;
/** Stream-shape failures that a fresh attempt usually cures (a truncated or empty stream). */
const TRANSIENT_SDK_ERRORS = new Set([
  'AI_InvalidResponseDataError',
  'AI_NoOutputGeneratedError',
  'AI_EmptyResponseBodyError',
]);
const MAX_DETAIL = 500;
/**
 * Each vendor's words for a request longer than the model's context window: OpenAI's
 * `context_length_exceeded` code (Chat: "maximum context length is …", Responses: "exceeds the context
 * window"), Anthropic's "prompt is too long", Gemini's "exceeds the maximum number of tokens allowed",
 * xAI's "maximum prompt length is …", vLLM and other OpenAI-compatible servers' "maximum context length".
 */
const CONTEXT_LENGTH =
  /context_length_exceeded|prompt is too long|exceeds the maximum number of tokens|maximum (?:context|prompt) length|exceeds the context window/i;

/**
 * What a backend should throw for `error`: the signal's own reason when the call was aborted (aborts are
 * never wrapped, so the orchestrator can tell cancellation from failure), otherwise a {@link ProviderError}.
 */
export function errorToThrow(error: unknown, signal: AbortSignal, context: ProviderErrorContext): unknown {
  if (signal.aborted) return signal.reason;
  return toProviderError(error, context);
}

/**
 * Maps any error raised by an AI SDK call to a {@link ProviderError} with a one-line, secret-free message
 * and the right `retryable` flag: 408/409/429/5xx and network failures are retryable; 400/401/403/404/422
 * are not.
 */
export function toProviderError(error: unknown, context: ProviderErrorContext): ProviderError {
  if (error instanceof ProviderError) return error;
  const redact = redactor(context.secrets ?? []);
  const { provider } = context;

  if (APICallError.isInstance(error) && error.statusCode !== undefined && error.statusCode >= 300) {
    const status = error.statusCode;
    const statusText = STATUS_CODES[status] ?? (status === 529 ? 'Overloaded' : undefined);
    const detail = providerMessage(error.responseBody, error.message, statusText);
    const head = `${provider}: HTTP ${status}${statusText === undefined ? '' : ` ${statusText}`}`;
    return new ProviderError(provider, redact(detail === undefined ? head : `${head}: ${detail}`), {
      cause: error,
      status,
      retryable:
        RETRYABLE_STATUSES.has(status) || status >= 500 || (!FINAL_STATUSES.has(status) && error.isRetryable),
      retryAfterMs: retryAfterMs(error.responseHeaders),
      // A rate limit may speak of tokens too; only a refused request is about the window.
      contextLength:
        FINAL_STATUSES.has(status) && CONTEXT_LENGTH.test(`${error.responseBody ?? ''} ${detail ?? ''}`),
    });
  }

  const network = networkFailure(error);
  if (network !== undefined) {
    const where = displayUrl(context.baseUrl ?? (APICallError.isInstance(error) ? error.url : undefined));
    const target = where ?? 'the provider';
    // A 2xx APICallError, or a failure while reading the body, means the response had started: the
    // connection dropped mid-stream.
    const started =
      context.responseStarted === true || (APICallError.isInstance(error) && error.statusCode !== undefined);
    const text = started
      ? `${provider}: connection to ${target} was lost mid-response (${network})`
      : network === 'bad port'
        ? `${provider}: cannot reach ${target} (fetch refuses this port; use another one)`
        : `${provider}: cannot reach ${target} (${network})`;
    return new ProviderError(provider, redact(text), {
      cause: error,
      retryable: network !== 'bad port',
      unreachable: !started && CONNECT_CODES.has(network),
      responded: started,
    });
  }

  if (isStreamErrorObject(error)) {
    // An `{"error": {...}}` event inside an accepted stream: the server gave up mid-generation.
    const invalid = typeof error.type === 'string' && error.type.includes('invalid_request');
    return new ProviderError(provider, redact(`${provider}: ${clip(error.message)}`), {
      cause: error,
      retryable: !invalid,
      responded: true,
    });
  }

  const name = error instanceof Error ? error.name : undefined;
  const message = describeChain(error);
  return new ProviderError(provider, redact(`${provider}: ${clip(message)}`), {
    cause: error,
    retryable:
      (name !== undefined && TRANSIENT_SDK_ERRORS.has(name)) ||
      (APICallError.isInstance(error) && error.isRetryable),
  });
}

/** Milliseconds from `retry-after-ms` or `retry-after` (seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterMs(
  headers: Record<string, string> | undefined,
  now: number = Date.now(),
): number | undefined {
  if (headers === undefined) return undefined;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v.trim()]));
  const ms = lower['retry-after-ms'];
  if (ms !== undefined && ms !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = lower['retry-after'];
  if (after === undefined || after === '') return undefined;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The provider's own words from an error body (`{"error":{"message"}}`, `{"error":"..."}`, `{"message"}`, `{"detail"}`). */
function providerMessage(
  body: string | undefined,
  sdkMessage: string,
  statusText: string | undefined,
): string | undefined {
  if (body !== undefined && body.trim() !== '') {
    const fromJson = messageFromJson(body);
    if (fromJson !== undefined) return clip(fromJson);
  }
  // The SDK falls back to the HTTP status text when the body is not OpenAI-shaped; that adds nothing.
  if (sdkMessage !== '' && sdkMessage !== statusText) return clip(sdkMessage);
  if (body !== undefined && body.trim() !== '') return clip(body);
  return undefined;
}

function messageFromJson(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  const { error } = parsed;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  if (typeof error === 'string') return error;
  if (typeof parsed.message === 'string') return parsed.message;
  if (typeof parsed.detail === 'string') return parsed.detail;
  return undefined;
}

/**
 * The network error code (or the innermost cause's message) when `error` is a connection failure,
 * else undefined. Undici nests the useful part: `TypeError: fetch failed` -> `Error: connect ECONNREFUSED`.
 */
function networkFailure(error: unknown): string | undefined {
  let matched = false;
  let innermost: string | undefined;
  const seen = new Set<unknown>();
  for (
    let current: unknown = error;
    current instanceof Error && !seen.has(current);
    current = current.cause
  ) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    if (NETWORK_MESSAGE.test(current.message)) matched = true;
    innermost = current.message;
  }
  if (!matched) return undefined;
  return innermost === undefined
    ? 'connection failed'
    : clip(innermost.replace(/^cannot connect to api:\s*/i, ''));
}

/** `outer: inner: innermost` messages, so wrappers like "Failed to process successful response" keep their reason. */
function describeChain(error: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  for (let current: unknown = error; current !== undefined && current !== null && !seen.has(current);) {
    seen.add(current);
    if (!(current instanceof Error)) {
      parts.push(String(current));
      break;
    }
    const text = current.message || current.name;
    if (!parts.some((p) => p.includes(text))) parts.push(text);
    current = current.cause;
  }
  return clip(parts.join(': '));
}

function isStreamErrorObject(error: unknown): error is { message: string; type?: unknown } {
  return isRecord(error) && !(error instanceof Error) && typeof error.message === 'string';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Origin and path only: a base URL may carry credentials or key-bearing query parameters. */
function displayUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL)}…` : line;
}

function redactor(secrets: readonly string[]): (text: string) => string {
  const exact = secrets.filter((s) => s.length >= 4);
  return (text) => {
    let out = text;
    for (const secret of exact) out = out.split(secret).join('***');
    return out.replace(/Bearer\s+[^\s"',]+/gi, 'Bearer ***').replace(/\bsk-[A-Za-z0-9_*-]{6,}/g, 'sk-***');
  };
}
