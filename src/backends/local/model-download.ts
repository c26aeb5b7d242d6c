import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DownloadProgress } from '../../types/backend.js';
import { MassGenError, ProviderError } from '../../types/errors.js';
import { linkedAbortController, throwIfAborted } from '../../util/abort.js';
import { describe, disk, diskError, failure, httpError, networkDetail } from './download-errors.js';

/** How {@link downloadModel} fetches, reports and checks. */
export interface DownloadOptions {
  /** The name progress reports and messages show (the file's base name). */
  file: string;
  /** The hub the URL belongs to: node-llama-cpp sends its Hugging Face access token only there. */
  hubEndpoint: string;
  /** Hugging Face access token, sent only to `hubEndpoint` (as node-llama-cpp's `tokens.huggingFace`). */
  hubToken?: string;
  onProgress?: (progress: DownloadProgress) => void;
  /** Aborting stops the download at once and rejects with the signal's reason (the part is kept). */
  signal?: AbortSignal;
  /** Checks the complete file before it is renamed into place; throwing rejects (and deletes) it. */
  verify?: (path: string) => Promise<void>;
  /** Builds the error for an unreachable hub: only the caller knows what to advise offline. */
  offlineError: (reason: string, cause: unknown) => Error;
  /** Give up when no bytes (or no answer) arrive for this long; default 60 s. */
  idleTimeoutMs?: number;
}

export interface DownloadResult {
  bytes: number;
  /** False when the hub gave no sha256 to compare with (size and `verify` still ran). */
  checksumVerified: boolean;
}

const MAX_REDIRECTS = 10;

/** No data (or no answer) for the idle timeout; reported as a network failure. */
class Stalled extends Error {}

/**
 * Downloads `url` to `destination` with node-llama-cpp's `createModelDownloader` (ipull: parallel
 * ranged connections; an interrupted download leaves `<destination>.partial.ipull`, which the next
 * run resumes). The destination only ever holds a complete, verified file. What the library lacks
 * is added around it:
 * - a probe first (HEAD, redirects followed by hand): it fails at once when the hub cannot be
 *   reached (the library retries 150 times, up to 5 s apart), names 404 and 401/403 plainly, and
 *   reads the file's size and sha256 (Hugging Face's `x-linked-etag`, or an `etag` that is a sha256);
 * - a check of that size and sha256 when the download ends (the library checks neither), then
 *   `verify`; a file that fails is deleted;
 * - an idle timeout (the library has none);
 * - a worker thread: cancelling the library's download does not stop a connection that is waiting
 *   to retry (its promise never settles and the retries keep the process alive for minutes), so the
 *   library runs in a worker that is terminated on abort, stall or failure.
 * Two processes downloading the same file at once share the `.ipull` part (the library locks only
 * within one process); the checksum then catches a mixed-up file.
 *
 * Throws the signal's reason when aborted, `offlineError(...)` when the hub cannot be reached or the
 * transfer stalls, and a non-retryable {@link ProviderError} for HTTP errors, a wrong size or
 * checksum, and disk failures.
 */
export async function downloadModel(
  url: string,
  destination: string,
  options: DownloadOptions,
): Promise<DownloadResult> {
  throwIfAborted(options.signal);
  const folder = dirname(destination);
  await disk(folder, mkdir(folder, { recursive: true }));
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  const expected = await probe(url, options, idleTimeoutMs);

  const report = options.onProgress && reportSafely(options.onProgress);
  let received = 0;
  let bytesPerSecond = 0;
  const progress = (done: boolean, totalBytes: number | null, secondsLeft: number | null): void =>
    report?.({ file: options.file, receivedBytes: received, totalBytes, bytesPerSecond, secondsLeft, done });
  progress(false, expected.size ?? null, null);

  const downloaded = await runDownloader(
    {
      modelUri: url,
      dirPath: folder,
      fileName: `${basename(destination)}.partial`,
      skipExisting: false,
      deleteTempFileOnCancel: false,
      endpoints: { huggingFace: options.hubEndpoint },
      ...(options.hubToken ? { tokens: { huggingFace: options.hubToken } } : {}),
    },
    options,
    idleTimeoutMs,
    (update) => {
      received = Math.max(received, update.received);
      if (update.speed > 0) bytesPerSecond = update.speed;
      const left = Number.isFinite(update.left) && update.speed > 0 ? update.left / 1000 : null;
      progress(false, update.total || expected.size || null, left);
    },
  );

  let renamed = false;
  try {
    const bytes = (await disk(folder, stat(downloaded))).size;
    if (expected.size !== undefined && bytes !== expected.size) {
      throw failure(
        `downloaded model is incomplete (${options.file}): expected ${expected.size} bytes, got ${bytes}`,
        'run again to download it afresh',
      );
    }
    if (expected.sha256 !== undefined) {
      const sha256 = await sha256Of(downloaded);
      if (sha256 !== expected.sha256) {
        throw failure(
          `downloaded model failed its checksum (${options.file}): expected ${expected.sha256} got ${sha256}`,
          'the file was corrupted on the way; run again to download it afresh',
        );
      }
    }
    await options.verify?.(downloaded);
    throwIfAborted(options.signal);
    await disk(folder, rename(downloaded, destination));
    renamed = true;
    received = bytes;
    progress(true, bytes, 0);
    return { bytes, checksumVerified: expected.sha256 !== undefined };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof MassGenError) throw error;
    throw new ProviderError(
      'local',
      `cannot check the downloaded model (${options.file}): ${describe(error)}`,
      {
        cause: error,
        retryable: false,
      },
    );
  } finally {
    if (!renamed) await rm(downloaded, { force: true }).catch(() => {});
  }
}

/** The size and sha256 the hub announces; either may be unknown. */
interface Expected {
  size?: number;
  sha256?: string;
}

async function probe(url: string, options: DownloadOptions, idleTimeoutMs: number): Promise<Expected> {
  const { controller, dispose } = linkedAbortController(options.signal);
  const timer = setTimeout(() => controller.abort(new Stalled()), idleTimeoutMs);
  const expected: Expected = {};
  let current = url;
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      // `identity`: a compressed body would make content-length disagree with the bytes.
      const response = await fetch(current, {
        method: 'HEAD',
        redirect: 'manual',
        signal: controller.signal,
        headers: {
          'accept-encoding': 'identity',
          ...accessToken(current, options.hubEndpoint, options.hubToken),
        },
      });
      expected.sha256 ??= sha256FromEtag(response.headers.get('x-linked-etag'));
      expected.size ??= parseSize(response.headers.get('x-linked-size'));
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location !== null) {
        current = new URL(location, current).toString();
        continue;
      }
      // A server without HEAD: the download itself finds out the rest.
      if (response.status === 405 || response.status === 501) return expected;
      if (!response.ok) throw httpError(response.status, current === url ? url : `${url} (via ${current})`);
      expected.size = parseSize(response.headers.get('content-length')) ?? expected.size;
      expected.sha256 ??= sha256FromEtag(response.headers.get('etag'));
      return expected;
    }
    throw failure(`model download failed: more than ${MAX_REDIRECTS} redirects from ${url}`);
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof MassGenError) throw error;
    if (controller.signal.reason instanceof Stalled) {
      throw options.offlineError(`no answer for ${idleTimeoutMs / 1000} s`, error);
    }
    throw options.offlineError(`no network: ${networkDetail(error)}`, error);
  } finally {
    clearTimeout(timer);
    dispose();
  }
}

/** What the worker is given: `createModelDownloader`'s options. */
interface DownloaderOptions {
  modelUri: string;
  dirPath: string;
  fileName: string;
  skipExisting: boolean;
  deleteTempFileOnCancel: boolean;
  endpoints: { huggingFace: string };
  tokens?: { huggingFace: string };
}

interface WorkerUpdate {
  received: number;
  total: number;
  /** Bytes per second, averaged by the library over its last 10 s. */
  speed: number;
  /** Milliseconds; Infinity when unknown. */
  left: number;
}

type WorkerMessage =
  | { kind: 'ready' }
  | ({ kind: 'progress' } & WorkerUpdate)
  | { kind: 'done'; path: string }
  | { kind: 'failed'; message: string; status?: number; code?: string; cause?: string };

/** The worker: plain JavaScript evaluated as CommonJS, so it runs the same from `src` and `dist`. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const send = (message) => parentPort.postMessage(message);
(async () => {
  const { createModelDownloader } = await import(workerData.library);
  send({ kind: 'ready' });
  const downloader = await createModelDownloader({
    ...workerData.options,
    onProgress: (p) => send({ kind: 'progress', received: p.downloadedSize, total: p.totalSize, speed: p.averageSpeed, left: p.estimatedTimeLeft }),
  });
  await downloader.download();
  send({ kind: 'done', path: downloader.entrypointFilePath });
})().catch((error) => send({
  kind: 'failed',
  message: String(error && error.message !== undefined ? error.message : error),
  status: typeof error?.statusCode === 'number' ? error.statusCode : undefined,
  code: typeof (error?.code ?? error?.cause?.code) === 'string' ? (error.code ?? error.cause.code) : undefined,
  cause: error?.cause?.message === undefined ? undefined : String(error.cause.message),
}));
`;

/** Runs `createModelDownloader` in a worker; resolves with the downloaded file's path. */
function runDownloader(
  downloaderOptions: DownloaderOptions,
  options: DownloadOptions,
  idleTimeoutMs: number,
  onUpdate: (update: WorkerUpdate) => void,
): Promise<string> {
  throwIfAborted(options.signal);
  const library = pathToFileURL(createRequire(import.meta.url).resolve('node-llama-cpp')).href;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    // An empty environment: the library would otherwise read HF_TOKEN from this process's env, and the
    // token must come only from the run's env (passed as `tokens`). Its home folder still comes from
    // the user database, so ~/.cache/huggingface/token keeps working.
    env: {},
    workerData: { library, options: downloaderOptions },
  });
  const folder = downloaderOptions.dirPath;
  return new Promise<string>((resolve, reject) => {
    let settled = false;
    let best = -1;
    let timer: NodeJS.Timeout | undefined;
    const finish = (outcome: { path: string } | { error: unknown }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      if ('path' in outcome) resolve(outcome.path);
      else reject(outcome.error);
    };
    const touch = (): void => {
      clearTimeout(timer);
      timer = setTimeout(
        () => finish({ error: options.offlineError(`no data for ${idleTimeoutMs / 1000} s`, new Stalled()) }),
        idleTimeoutMs,
      );
    };
    const onAbort = (): void => finish({ error: options.signal?.reason });
    options.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: WorkerMessage) => {
      // The idle timer runs from when the library is loaded: loading it is not waiting for the network.
      if (message.kind === 'ready') {
        touch();
      } else if (message.kind === 'progress') {
        if (message.received > best) {
          best = message.received;
          touch();
        }
        if (!settled) onUpdate(message);
      } else if (message.kind === 'done') {
        finish({ path: message.path });
      } else {
        finish({ error: downloaderError(message, downloaderOptions.modelUri, folder, options) });
      }
    });
    worker.on('error', (error) => finish({ error: options.offlineError(describe(error), error) }));
    worker.on('exit', (code) =>
      finish({ error: new Error(`the model download stopped (exit code ${code})`) }),
    );
  });
}

/** The error for a failure the library reported. */
function downloaderError(
  failed: { message: string; status?: number; code?: string; cause?: string },
  url: string,
  folder: string,
  options: DownloadOptions,
): Error {
  if (failed.status !== undefined) return httpError(failed.status, url);
  if (
    failed.code === 'ENOSPC' ||
    failed.code === 'EACCES' ||
    failed.code === 'EPERM' ||
    failed.code === 'EROFS'
  ) {
    return diskError(folder, failed.code === 'ENOSPC' ? 'the disk is full' : failed.message);
  }
  const detail =
    failed.cause && !failed.message.includes(failed.cause)
      ? `${failed.message}: ${failed.cause}`
      : failed.message;
  return options.offlineError(`connection lost: ${detail}`, new Error(detail));
}

/** Hugging Face's access token for requests to the hub itself, as node-llama-cpp sends it. */
function accessToken(url: string, hubEndpoint: string, token: string | undefined): Record<string, string> {
  if (!token) return {};
  try {
    return new URL(url).origin === new URL(hubEndpoint).origin ? { authorization: `Bearer ${token}` } : {};
  } catch {
    return {};
  }
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
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
