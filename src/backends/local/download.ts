import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { DownloadProgress } from '../../types/backend.js';
import { MassGenError, ProviderError } from '../../types/errors.js';
import { linkedAbortController, throwIfAborted } from '../../util/abort.js';
import { TransferMeter } from './transfer-meter.js';

/** How {@link downloadFile} fetches, reports and checks. */
export interface DownloadOptions {
  /** The name progress reports and messages show (the file's base name). */
  file: string;
  onProgress?: (progress: DownloadProgress) => void;
  /** Aborting stops the download, deletes the partial file and rejects with the signal's reason. */
  signal?: AbortSignal;
  fetchImpl?: typeof fetch;
  /** Checks the complete temporary file before it is renamed into place; throwing rejects it. */
  verify?: (temporaryPath: string) => Promise<void>;
  /** Builds the error for an unreachable hub: only the caller knows what to advise offline. */
  offlineError: (reason: string, cause: unknown) => Error;
  /** Give up when no bytes (or no response) arrive for this long; default 60 s. */
  idleTimeoutMs?: number;
  now?: () => number;
}

export interface DownloadResult {
  bytes: number;
  sha256: string;
  /** False when the server gave no sha256 to compare with (size and `verify` still ran). */
  checksumVerified: boolean;
}

const MAX_REDIRECTS = 10;
/** Connection-level failures: the network (or the hub) is not reachable at all. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The stall timer fired; reported as a network failure. */
class IdleTimeout extends Error {}

/**
 * Downloads `url` to `destination` so that the destination only ever holds a complete, verified
 * file: bytes stream into `<name>.partial-<pid>-<random>` beside it while their sha256 is computed;
 * then the size (content-length), the sha256 (Hugging Face's `x-linked-etag`, or an `etag` that is
 * a sha256) and `verify` must pass before an atomic rename. On any failure the partial file is
 * deleted. Redirects are followed by hand because the hub puts the hash on the redirect response.
 *
 * Throws the signal's reason when aborted, `offlineError(...)` when the hub cannot be reached, and
 * a non-retryable {@link ProviderError} for HTTP errors, bad checksums and disk failures.
 */
export async function downloadFile(
  url: string,
  destination: string,
  options: DownloadOptions,
): Promise<DownloadResult> {
  throwIfAborted(options.signal);
  const folder = dirname(destination);
  await disk(folder, mkdir(folder, { recursive: true }));
  await removeStalePartials(destination);

  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  const { controller, dispose } = linkedAbortController(options.signal);
  let idleTimer: NodeJS.Timeout | undefined;
  const touch = (): void => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => controller.abort(new IdleTimeout()), idleTimeoutMs);
  };
  const temporary = `${destination}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  let handle: FileHandle | undefined;
  let renamed = false;
  /** Which step failed decides how an unexpected error reads. */
  let phase: 'connecting' | 'receiving' | 'checking' = 'connecting';
  try {
    touch();
    const hop = await fetchFollowingRedirects(url, options.fetchImpl ?? fetch, controller.signal);
    const response = hop.response;
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => {});
      throw httpError(response.status, hop.url === url ? url : `${url} (via ${hop.url})`);
    }
    const expectedBytes = parseSize(response.headers.get('content-length')) ?? hop.linkedSize;
    const expectedSha = hop.linkedSha ?? sha256FromEtag(response.headers.get('etag'));

    phase = 'receiving';
    handle = await disk(folder, open(temporary, 'wx'));
    const hash = createHash('sha256');
    const meter = new TransferMeter({
      file: options.file,
      totalBytes: expectedBytes ?? null,
      onProgress: options.onProgress && reportSafely(options.onProgress),
      ...(options.now ? { now: options.now } : {}),
    });
    meter.start();
    for await (const chunk of response.body) {
      touch();
      hash.update(chunk);
      await disk(folder, handle.write(chunk));
      meter.add(chunk.byteLength);
    }
    clearTimeout(idleTimer);
    phase = 'checking';
    await disk(folder, handle.close());
    handle = undefined;

    const bytes = meter.receivedBytes;
    if (expectedBytes !== undefined && bytes !== expectedBytes) {
      throw failure(
        `downloaded model is incomplete (${options.file}): expected ${expectedBytes} bytes, got ${bytes}`,
        'the connection was cut; run again to download it afresh',
      );
    }
    const sha256 = hash.digest('hex');
    if (expectedSha !== undefined && sha256 !== expectedSha) {
      throw failure(
        `downloaded model failed its checksum (${options.file}): expected ${expectedSha} got ${sha256}`,
        'the file was corrupted on the way; run again to download it afresh',
      );
    }
    await options.verify?.(temporary);
    throwIfAborted(options.signal);
    await disk(folder, rename(temporary, destination));
    renamed = true;
    meter.finish();
    return { bytes, sha256, checksumVerified: expectedSha !== undefined };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof MassGenError) throw error;
    if (phase === 'checking') {
      throw new ProviderError(
        'local',
        `cannot check the downloaded model (${options.file}): ${describe(error)}`,
        {
          cause: error,
          retryable: false,
        },
      );
    }
    if (controller.signal.reason instanceof IdleTimeout) {
      throw options.offlineError(`no data for ${idleTimeoutMs / 1000} s`, error);
    }
    throw options.offlineError(networkReason(error, phase === 'connecting'), error);
  } finally {
    clearTimeout(idleTimer);
    dispose();
    await handle?.close().catch(() => {});
    if (!renamed) await rm(temporary, { force: true }).catch(() => {});
  }
}

async function fetchFollowingRedirects(
  url: string,
  fetchImpl: typeof fetch,
  signal: AbortSignal,
): Promise<{ response: Response; url: string; linkedSha?: string; linkedSize?: number }> {
  let current = url;
  let linkedSha: string | undefined;
  let linkedSize: number | undefined;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    // `identity`: a compressed body would make content-length and the checksum disagree with the bytes.
    const response = await fetchImpl(current, {
      redirect: 'manual',
      signal,
      headers: { 'accept-encoding': 'identity' },
    });
    linkedSha ??= sha256FromEtag(response.headers.get('x-linked-etag'));
    linkedSize ??= parseSize(response.headers.get('x-linked-size'));
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) {
      return { response, url: current, linkedSha, linkedSize };
    }
    await response.body?.cancel().catch(() => {});
    current = new URL(location, current).toString();
  }
  throw failure(`model download failed: more than ${MAX_REDIRECTS} redirects from ${url}`);
}

/** Hugging Face puts an LFS file's sha256 in (x-linked-)etag, quoted; other etags are not hashes. */
function sha256FromEtag(etag: string | null): string | undefined {
  const value = etag
    ?.trim()
    .replace(/^W\//, '')
    .replace(/^"(.*)"$/, '$1');
  return value !== undefined && /^[0-9a-f]{64}$/i.test(value) ? value.toLowerCase() : undefined;
}

function parseSize(header: string | null): number | undefined {
  if (header === null || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim());
}

function httpError(status: number, url: string): ProviderError {
  if (status === 404) {
    return failure(
      `model not found on the hub: ${url}`,
      'check the user, repository and file name of the hf: reference (they are case-sensitive)',
      status,
    );
  }
  if (status === 401 || status === 403) {
    return failure(
      `the hub refused the download (HTTP ${status}): ${url}`,
      'gated or private models must be downloaded in a browser; then pass --local-model /path/to/model.gguf',
      status,
    );
  }
  return failure(`model download failed (HTTP ${status}): ${url}`, 'try again later', status);
}

function failure(message: string, hint?: string, status?: number): ProviderError {
  return new ProviderError('local', message, {
    retryable: false,
    ...(hint === undefined ? {} : { hint }),
    ...(status === undefined ? {} : { status }),
  });
}

/** Runs a file-system step; its failure becomes one line naming the folder. */
async function disk<T>(folder: string, step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ProviderError(
      'local',
      `cannot save the model in ${folder}: ${code === 'ENOSPC' ? 'the disk is full' : describe(error)}`,
      { cause: error, retryable: false, hint: 'free some disk space or choose another model folder' },
    );
  }
}

/** A short phrase for a fetch failure, e.g. `no network: connect ECONNREFUSED 127.0.0.1:9`. */
function networkReason(error: unknown, beforeResponse: boolean): string {
  let cause: unknown = error instanceof Error && error.cause !== undefined ? error.cause : error;
  if (cause instanceof AggregateError && cause.errors[0] !== undefined) cause = cause.errors[0];
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const detail = describe(cause) || code || 'fetch failed';
  const unreachable = beforeResponse || (code !== undefined && UNREACHABLE.has(code));
  return unreachable ? `no network: ${detail}` : `connection lost: ${detail}`;
}

/** A failing progress view must not fail (or be mistaken for a failure of) the download. */
function reportSafely(
  onProgress: (progress: DownloadProgress) => void,
): (progress: DownloadProgress) => void {
  return (progress) => {
    try {
      onProgress(progress);
    } catch {
      // Ignored on purpose: the download matters more than its progress bar.
    }
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Deletes partial files that earlier, dead processes left beside `destination`; best effort. */
async function removeStalePartials(destination: string): Promise<void> {
  const prefix = `${basename(destination)}.partial-`;
  const names = await readdir(dirname(destination)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (!Number.isInteger(pid) || pid === process.pid || isAlive(pid)) continue;
    await rm(join(dirname(destination), name), { force: true }).catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
