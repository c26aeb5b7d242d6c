import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../types/errors.js';
import { errorToThrow, retryAfterMs, toProviderError } from './provider-errors.js';

const context = {
  provider: 'chatcompletion',
  baseUrl: 'https://user:pw@example.test/v1/?key=abc',
  secrets: ['sk-live-SECRET'],
};

function apiError(
  statusCode: number,
  responseBody?: string,
  responseHeaders?: Record<string, string>,
): APICallError {
  return new APICallError({
    message: 'sdk message',
    url: 'https://example.test/v1/chat/completions',
    requestBodyValues: {},
    statusCode,
    ...(responseBody === undefined ? {} : { responseBody }),
    ...(responseHeaders === undefined ? {} : { responseHeaders }),
  });
}

describe('toProviderError', () => {
  it.each([
    [408, true],
    [409, true],
    [429, true],
    [500, true],
    [503, true],
    [400, false],
    [401, false],
    [403, false],
    [404, false],
    [422, false],
  ])('HTTP %i -> retryable %s', (status, retryable) => {
    const error = toProviderError(apiError(status), context);
    expect(error).toMatchObject({ status, retryable, provider: 'chatcompletion' });
    expect(error.cause).toBeInstanceOf(APICallError);
  });

  it.each([
    ['{"error":{"message":"Model not found"}}', 'Model not found'],
    ['{"error":"bad thing"}', 'bad thing'],
    ['{"message":"plain message"}', 'plain message'],
    ['{"detail":"fastapi style"}', 'fastapi style'],
    ['upstream   exploded\n', 'upstream exploded'],
  ])('takes the provider message from body %s', (body, expected) => {
    const error = toProviderError(
      new APICallError({
        message: 'Bad Request',
        url: 'u',
        requestBodyValues: {},
        statusCode: 400,
        responseBody: body,
      }),
      context,
    );
    expect(error.message).toBe(`chatcompletion: HTTP 400 Bad Request: ${expected}`);
  });

  it('scrubs the API key, bearer tokens and sk- keys from messages', () => {
    const body = JSON.stringify({
      error: { message: 'bad key sk-live-SECRET; header was Bearer abc.def; also sk-proj-abcdef123456' },
    });
    const { message } = toProviderError(apiError(401, body), context);
    expect(message).not.toContain('SECRET');
    expect(message).not.toContain('abc.def');
    expect(message).not.toContain('abcdef123456');
  });

  it('maps fetch failures to retryable network errors naming the base URL without credentials', () => {
    const cause = Object.assign(new Error('getaddrinfo ENOTFOUND example.test'), { code: 'ENOTFOUND' });
    const error = toProviderError(new TypeError('fetch failed', { cause }), context);
    expect(error).toMatchObject({ retryable: true, status: undefined, unreachable: true });
    expect(error.message).toBe('chatcompletion: cannot reach https://example.test/v1 (ENOTFOUND)');
  });

  it('marks a refused connection unreachable, but not a connection lost after it was made', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(toProviderError(new TypeError('fetch failed', { cause: refused }), context).unreachable).toBe(
      true,
    );
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(toProviderError(new TypeError('fetch failed', { cause: reset }), context).unreachable).toBe(false);
  });

  it('recognises socket hang up without an error code', () => {
    const error = toProviderError(new Error('socket hang up'), { provider: 'p' });
    expect(error).toMatchObject({
      retryable: true,
      unreachable: false,
      message: 'p: cannot reach the provider (socket hang up)',
    });
  });

  it('treats fetch "bad port" refusals as final', () => {
    const sdkError = new APICallError({
      message: 'Cannot connect to API: bad port',
      url: 'http://127.0.0.1:9/v1/chat/completions',
      requestBodyValues: {},
      cause: new Error('bad port'),
      isRetryable: true,
    });
    const error = toProviderError(sdkError, { provider: 'p', baseUrl: 'http://127.0.0.1:9/v1' });
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('http://127.0.0.1:9/v1');
  });

  it('maps an in-stream {"error":{...}} object to a retryable error with its message', () => {
    const error = toProviderError({ message: 'overloaded', type: 'server_error' }, context);
    expect(error).toMatchObject({ retryable: true, message: 'chatcompletion: overloaded' });
    const invalid = toProviderError({ message: 'bad param', type: 'invalid_request_error' }, context);
    expect(invalid.retryable).toBe(false);
  });

  it('keeps the reason of wrapper errors and treats truncated streams as retryable', () => {
    const truncated = Object.assign(new Error('Response stream ended without a finish reason.'), {
      name: 'AI_InvalidResponseDataError',
    });
    expect(toProviderError(truncated, context).retryable).toBe(true);
    const wrapped = new Error('Failed to process successful response', { cause: new Error('invalid chunk') });
    expect(toProviderError(wrapped, context)).toMatchObject({
      retryable: false,
      message: 'chatcompletion: Failed to process successful response: invalid chunk',
    });
  });

  it('passes ProviderErrors through unchanged', () => {
    const original = new ProviderError('x', 'x: boom', { retryable: true });
    expect(toProviderError(original, context)).toBe(original);
  });
});

describe('errorToThrow', () => {
  it('returns the abort reason unchanged once the signal aborted', () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by user');
    controller.abort(reason);
    expect(errorToThrow(apiError(500), controller.signal, context)).toBe(reason);
  });

  it('maps the error while the signal is live', () => {
    expect(errorToThrow(apiError(500), new AbortController().signal, context)).toBeInstanceOf(ProviderError);
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    [{ 'retry-after-ms': '250' }, 250],
    [{ 'retry-after': '3' }, 3000],
    [{ 'retry-after': '0.5' }, 500],
    [{ 'Retry-After': '1' }, 1000],
    [{ 'retry-after-ms': '100', 'retry-after': '9' }, 100],
    [{ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }, 5000],
    [{ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, 0],
    [{ 'retry-after': 'soon' }, undefined],
    [{}, undefined],
  ])('%j -> %s', (headers, expected) => {
    expect(retryAfterMs(headers, now)).toBe(expected);
  });
});
