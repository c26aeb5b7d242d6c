import { ConfigError } from '../../types/errors.js';
import { isAbortError, linkedAbortController } from '../../util/abort.js';
import { retryWithBackoff } from '../../util/backoff.js';

/** The public Hugging Face datasets server (the dataset viewer's API). */
export const DEFAULT_DATASETS_ENDPOINT = 'https://datasets-server.huggingface.co';

/** Where the rows come from: `MASSGEN_HF_DATASETS_ENDPOINT`, else the public datasets server. */
export function datasetsEndpoint(env: Readonly<Record<string, string | undefined>>): string {
  return (env.MASSGEN_HF_DATASETS_ENDPOINT || DEFAULT_DATASETS_ENDPOINT).replace(/\/+$/, '');
}

/**
 * Whether a request to `url` may carry the Hugging Face token: only over https to `huggingface.co`
 * or one of its subdomains. A mirror or test server named by an endpoint variable never gets it, and
 * neither does a host that merely ends in the same letters (`evilhuggingface.co`).
 */
export function mayCarryHfToken(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const host = parsed.hostname.toLowerCase();
  return parsed.protocol === 'https:' && (host === 'huggingface.co' || host.endsWith('.huggingface.co'));
}

/** The server could not be reached at all (no answer): the caller may fall back to its cache. */
export class HfUnreachable extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'HfUnreachable';
  }
}

/** The server answered with an error status; `message` is its own words, if it gave any (untrusted). */
export class HfStatusError extends Error {
  constructor(
    readonly status: number,
    readonly serverMessage: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(`HTTP ${status}`);
    this.name = 'HfStatusError';
  }
}

/** How {@link getHfJson} fetches. */
export interface HfGetOptions {
  /** The token, sent as `Authorization: Bearer` only where {@link mayCarryHfToken} allows. */
  token?: string;
  signal?: AbortSignal;
  /** The largest body accepted, in bytes: a bigger answer is refused, not read into memory. */
  maxBytes: number;
  /** What is being fetched, for messages: `openai/gsm8k main/test rows 100–199`. */
  what: string;
  /** Each request's time limit; default 60 s. */
  timeoutMs?: number;
  /** Retries of 429 and 5xx answers; default 4. */
  retries?: number;
  /** Called with the bytes of each body read (for the progress bar). */
  onBytes?: (bytes: number) => void;
}

const MAX_REDIRECTS = 5;
/** How much of an error body is quoted in a message. */
const QUOTED_CHARS = 200;

/** The body, read chunk by chunk and refused as soon as it passes `maxBytes`. */
async function readBounded(response: Response, options: HfGetOptions): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  const tooBig = () =>
    new ConfigError(
      `the answer for ${options.what} is larger than ${Math.round(options.maxBytes / 2 ** 20)} MiB: refused`,
      { hint: 'check MASSGEN_HF_DATASETS_ENDPOINT points at a Hugging Face datasets server' },
    );
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooBig();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > options.maxBytes) {
        await response.body.cancel().catch(() => {});
        throw tooBig();
      }
      chunks.push(Buffer.from(chunk));
    }
  }
  options.onBytes?.(size);
  return Buffer.concat(chunks).toString('utf8');
}

/** Seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
function retryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The server's own error words: its JSON `error` field, else the start of the body. */
function serverWords(text: string): string {
  let words = text;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && typeof (parsed as { error?: unknown }).error === 'string')
      words = (parsed as { error: string }).error;
  } catch {
    // Not JSON: the text as it is.
  }
  const flat = words.replace(/\s+/g, ' ').trim();
  return flat.length > QUOTED_CHARS ? `${flat.slice(0, QUOTED_CHARS)}…` : flat;
}

/** One GET, redirects followed by hand so the token is dropped on the way to any other host. */
async function getOnce(url: string, options: HfGetOptions): Promise<unknown> {
  const { controller, dispose } = linkedAbortController(options.signal);
  const timer = setTimeout(
    () => controller.abort(new HfUnreachable(`no answer within ${(options.timeoutMs ?? 60_000) / 1000} s`)),
    options.timeoutMs ?? 60_000,
  );
  try {
    let current = url;
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (options.token && mayCarryHfToken(current)) headers.authorization = `Bearer ${options.token}`;
      let response: Response;
      try {
        response = await fetch(current, { headers, redirect: 'manual', signal: controller.signal });
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (controller.signal.reason instanceof HfUnreachable) throw controller.signal.reason;
        if (isAbortError(error)) throw error;
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw new HfUnreachable(cause?.code ?? cause?.message ?? String(error));
      }
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel().catch(() => {});
        if (hop >= MAX_REDIRECTS) throw new HfStatusError(response.status, 'too many redirects', undefined);
        const next = new URL(location, current);
        if (next.protocol !== 'https:' && next.protocol !== 'http:')
          throw new HfStatusError(response.status, `a redirect to ${next.protocol} refused`, undefined);
        current = next.href;
        continue;
      }
      const text = await readBounded(response, options);
      if (!response.ok)
        throw new HfStatusError(
          response.status,
          serverWords(text),
          retryAfter(response.headers.get('retry-after')),
        );
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new ConfigError(`the answer for ${options.what} is not JSON: ${serverWords(text)}`, {
          hint: 'check MASSGEN_HF_DATASETS_ENDPOINT points at a Hugging Face datasets server',
        });
      }
    }
  } catch (error) {
    if (controller.signal.reason instanceof HfUnreachable && !options.signal?.aborted)
      throw controller.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    dispose();
  }
}

const retryable = (error: unknown): error is HfStatusError =>
  error instanceof HfStatusError && (error.status === 429 || error.status >= 500);

/**
 * GETs `url` and parses its JSON body, bounded in size and time. Too many requests (429) and server
 * errors (5xx) are retried with backoff (the server's `Retry-After` when it gives one, up to 60 s).
 *
 * @throws {HfUnreachable} when no answer came (offline, refused, timed out);
 * @throws {HfStatusError} for an error status that stayed;
 * @throws {ConfigError} for a body that is too large or not JSON.
 */
export function getHfJson(url: string, options: HfGetOptions): Promise<unknown> {
  return retryWithBackoff(() => getOnce(url, options), {
    retries: options.retries ?? 4,
    isRetryable: retryable,
    retryAfterMs: (error) => error.retryAfterMs,
    tooLongWait: (error) => error,
    policy: { baseDelayMs: 1000, maxDelayMs: 15_000 },
    ...(options.signal ? { signal: options.signal } : {}),
  });
}
