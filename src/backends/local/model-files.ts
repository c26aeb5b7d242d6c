import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { DownloadProgress } from '../../types/backend.js';
import { ConfigError, ProviderError } from '../../types/errors.js';
import { throwIfAborted } from '../../util/abort.js';
import { assertGgufFile, checkGgufFile } from './gguf-check.js';
import { downloadModel } from './model-download.js';
import { cachePath, hubUrl, parseModelRef, type HubModelRef } from './model-ref.js';

export { cachePath, hubUrl, parseModelRef, type HubModelRef, type ModelRef } from './model-ref.js';

/** Where models live and how to fetch them; the app fills these from `LocalModelSettings`. */
export interface EnsureModelFileOptions {
  modelDir: string;
  hubEndpoint: string;
  /** Access token for gated or private models on the hub. */
  hubToken?: string;
  onProgress?: (progress: DownloadProgress) => void;
  /** Aborting stops a download and rejects with the signal's reason; the next run resumes it. */
  signal?: AbortSignal;
  /** A download that receives nothing for this long fails as a network error; default 60 s. */
  idleTimeoutMs?: number;
}

/** `name-00001-of-00003.gguf`: one part of a model split over several files. */
const SPLIT_PART = /-(\d{5})-of-(\d{5})\.gguf$/i;

/**
 * The absolute path of a complete GGUF model file for `model` (see {@link parseModelRef} for the
 * accepted forms), downloading and caching hub models first.
 *
 * Errors, each one line:
 * - {@link ConfigError} for anything the user must fix locally: a malformed reference, a missing
 *   or unreadable path, a file that is not a (complete) GGUF model, a bad hub endpoint;
 * - non-retryable {@link ProviderError} (provider `local`) for a failed download: HTTP errors, a
 *   bad checksum, no network (the message says how to proceed offline), a full disk.
 * An abort rejects with the signal's reason. The cache only ever holds complete, checked files: an
 * interrupted download leaves `<file>.partial.ipull` beside it, which the next call resumes.
 */
export async function ensureModelFile(model: string, options: EnsureModelFileOptions): Promise<string> {
  throwIfAborted(options.signal);
  const ref = parseModelRef(model);
  if (ref.kind === 'path') {
    await checkLocalFile(ref.path);
    return ref.path;
  }
  return ensureHubFile(model.trim(), ref, options);
}

async function checkLocalFile(path: string): Promise<void> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) {
      throw new ConfigError(`model path is a folder, not a file: ${path}`, {
        hint: 'point at the .gguf file inside it',
      });
    }
    if (!info.isFile()) throw new ConfigError(`model path is not a regular file: ${path}`);
    await assertGgufFile(path);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw fileError(path, error);
  }
}

function fileError(path: string, error: unknown): ConfigError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new ConfigError(`model file not found: ${path}`, {
      cause: error,
      hint: 'check the path, or give hf:<user>/<repo>/<file>.gguf to download a model',
    });
  }
  const reason = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : describe(error);
  return new ConfigError(`cannot read the model file: ${path} (${reason})`, { cause: error });
}

async function ensureHubFile(
  label: string,
  ref: HubModelRef,
  options: EnsureModelFileOptions,
): Promise<string> {
  checkEndpoint(options.hubEndpoint);
  const split = SPLIT_PART.exec(ref.file);
  if (split && split[2] !== '00001') {
    throw new ConfigError(
      `the model ${label} is split into ${Number(split[2])} files, which hub downloads do not support`,
      { hint: 'download every part into one folder yourself and pass the first part as a local path' },
    );
  }
  const url = hubUrl(ref, options.hubEndpoint);
  const destination = cachePath(ref, options.modelDir);
  if (await isUsableCache(destination)) return destination;

  const file = basename(ref.file);
  await downloadModel(url, destination, {
    file,
    hubEndpoint: options.hubEndpoint,
    ...(options.hubToken ? { hubToken: options.hubToken } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
    verify: async (temporaryPath) => {
      const check = await checkGgufFile(temporaryPath);
      if (check.ok) return;
      throw new ProviderError(
        'local',
        `downloaded file is not a usable GGUF model (${file}): ${check.detail}`,
        {
          retryable: false,
          hint: `check that ${url} is a .gguf model file`,
        },
      );
    },
    offlineError: (reason, cause) =>
      new ProviderError(
        'local',
        `cannot download the model ${label} (${reason}). Run again to retry (a partial download resumes), download ${url} yourself and save it as ${destination}, ` +
          'or run: massgen --local-model /path/to/model.gguf "question", ' +
          'or set an API key (e.g. OPENAI_API_KEY) or pass --config',
        // The hub could not be reached: the run could not start, as when no provider can be reached.
        { cause, retryable: false, unreachable: true },
      ),
  });
  return destination;
}

/** A cached file is used only when it passes the GGUF check; a damaged one is downloaded again. */
async function isUsableCache(path: string): Promise<boolean> {
  try {
    return (await checkGgufFile(path)).ok;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw fileError(path, error);
  }
}

function checkEndpoint(endpoint: string): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(endpoint).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new ConfigError(`invalid model hub URL: ${endpoint}`, {
      hint: 'the hub endpoint must be an http(s) URL such as https://huggingface.co',
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
