/** How {@link probeServer} asks. */
export interface ProbeOptions {
  /** Give up after this long; a server that is up answers `/models` at once. */
  timeoutMs: number;
  /** Stops the probe early (e.g. another candidate already answered). */
  signal?: AbortSignal;
  /** Sent with the request, e.g. the bearer token of a server started with `--api-key`. */
  headers?: Record<string, string>;
}

/**
 * True when an OpenAI-compatible server answers `GET <baseUrl>/models`: a 2xx, or 401/403 from a
 * server that guards its model list with a key. Any other status (some unrelated web server on the
 * port), a refused connection, a timeout or an abort count as no answer; this never throws.
 */
export async function probeServer(baseUrl: string, options: ProbeOptions): Promise<boolean> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const onAbort = (): void => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted === true) controller.abort();
  try {
    const response = await fetch(`${baseUrl.replace(/\/+$/, '')}/models`, {
      ...(options.headers === undefined ? {} : { headers: options.headers }),
      signal: controller.signal,
    });
    // The body is not needed; releasing it frees the connection.
    await response.body?.cancel().catch(() => {});
    return response.ok || response.status === 401 || response.status === 403;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
