import path from 'node:path';
import { ConfigError } from '../types/errors.js';
import { describeError } from '../types/errors.js';
import { fetchPublicUrl, UrlRefusedError, type UrlGuardOptions } from '../util/url-guard.js';
import { MAX_ANY_MEDIA_BYTES, formatBytes } from './media-limits.js';

/** How long a download may take before the run gives up on it. */
export const ATTACHMENT_DOWNLOAD_TIMEOUT_MS = 60_000;

/** Whether an attachment names an http(s) URL rather than a file. */
export function isAttachmentUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

/** The file name a URL's path ends in (`photo.jpg`), or `attachment` for a URL without one. */
export function nameFromUrl(url: string): string {
  try {
    const base = path.posix.basename(decodeURIComponent(new URL(url).pathname));
    return base === '' || base === '/' ? 'attachment' : base;
  } catch {
    return 'attachment';
  }
}

/** Options of {@link downloadAttachment}. */
export interface DownloadOptions {
  /** Largest body accepted. Default: the largest per-kind media limit. */
  maxBytes?: number;
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * Which addresses the URL (and each redirect) may reach: public ones only unless `allowPrivate`
   * (`--allow-private-urls`); see `util/url-guard.ts`.
   */
  guard?: UrlGuardOptions;
}

/**
 * Downloads an attachment given as a URL (MassGen configs point `upload_files` at images on the web),
 * at run start, with a size cap read from `Content-Length` and enforced on the stream. Only public
 * addresses are reached, on every redirect hop, unless the guard allows private ones.
 *
 * @throws {ConfigError} one line naming the URL: a private address refused, unreachable (offline, bad
 * host), an HTTP error, or over the cap — each with what to do instead.
 */
export async function downloadAttachment(url: string, options: DownloadOptions = {}): Promise<Uint8Array> {
  const maxBytes = options.maxBytes ?? MAX_ANY_MEDIA_BYTES;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? ATTACHMENT_DOWNLOAD_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const instead = 'download it yourself and attach the file by its path';
  let response: Response;
  try {
    response = await fetchPublicUrl(url, { ...options.guard, signal });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof UrlRefusedError)
      throw new ConfigError(
        `attachment ${url}: refused: ${error.reason}: pass --allow-private-urls to fetch from this machine or your network, or ${instead}`,
        { cause: error },
      );
    const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
    const why = timeout.aborted ? 'it took too long' : describeError(cause);
    throw new ConfigError(
      `attachment ${url}: could not download it (${why}): check the network, or ${instead}`,
      {
        cause: error,
      },
    );
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new ConfigError(
      `attachment ${url}: the server answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}: check the URL, or ${instead}`,
    );
  }
  const tooBig = (size: string) =>
    new ConfigError(
      `attachment ${url}: ${size} is over the ${formatBytes(maxBytes)} limit for an attached file: ${instead} and give it as a context path`,
    );
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooBig(formatBytes(declared));
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    if (response.body) {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        total += chunk.length;
        if (total > maxBytes) throw tooBig('the download');
        chunks.push(chunk);
      }
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if (options.signal?.aborted) throw options.signal.reason;
    throw new ConfigError(
      `attachment ${url}: the download broke off (${timeout.aborted ? 'it took too long' : describeError(error)}): ${instead}`,
      { cause: error },
    );
  }
  const data = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    data.set(chunk, offset);
    offset += chunk.length;
  }
  return data;
}
