import { ProviderError } from '../../types/errors.js';

// How a model download's failures read: one line naming the URL or folder, with a hint.

export function httpError(status: number, url: string): ProviderError {
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
      'a gated or private model needs an access token: accept its terms on its page and set HF_TOKEN, ' +
        'or download it in a browser and pass --local-model /path/to/model.gguf',
      status,
    );
  }
  return failure(`model download failed (HTTP ${status}): ${url}`, 'try again later', status);
}

export function failure(message: string, hint?: string, status?: number): ProviderError {
  return new ProviderError('local', message, {
    retryable: false,
    ...(hint === undefined ? {} : { hint }),
    ...(status === undefined ? {} : { status }),
  });
}

export function diskError(folder: string, reason: string, cause?: unknown): ProviderError {
  return new ProviderError('local', `cannot save the model in ${folder}: ${reason}`, {
    cause,
    retryable: false,
    hint: 'free some disk space or choose another model folder',
  });
}

/** Runs a file-system step; its failure becomes one line naming the folder. */
export async function disk<T>(folder: string, step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw diskError(folder, code === 'ENOSPC' ? 'the disk is full' : describe(error), error);
  }
}

/** A short phrase for a fetch failure, e.g. `connect ECONNREFUSED 127.0.0.1:9`. */
export function networkDetail(error: unknown): string {
  let cause: unknown = error instanceof Error && error.cause !== undefined ? error.cause : error;
  if (cause instanceof AggregateError && cause.errors[0] !== undefined) cause = cause.errors[0];
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return describe(cause) || code || 'fetch failed';
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
