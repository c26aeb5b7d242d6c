/** Exponential backoff with full jitter, capped; a server-given delay wins when it is longer. */
export interface BackoffPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
}

export const defaultBackoff: BackoffPolicy = { baseDelayMs: 500, maxDelayMs: 30_000 };

/**
 * The longest `Retry-After` a run waits for. A provider asking for longer (an exhausted daily quota,
 * a misconfigured proxy) would hold the whole team hostage: that attempt fails instead, with the wait
 * in its message.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Delay before retry number `attempt` (1-based). `random` is injectable so tests are deterministic.
 * A `Retry-After` from the server is honoured even above the cap: the server knows best.
 */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = exponential / 2 + random() * (exponential / 2);
  return retryAfterMs !== undefined ? Math.max(retryAfterMs, 0) : Math.round(jittered);
}
