import type { Backend, ModelStreamPart } from '../types/backend.js';
import type { CallLimiter } from '../util/rate-limiter.js';

/**
 * Wraps a backend so each model call first takes a slot from `limiter` (shared by every agent on the
 * same model) and gives it back when the stream ends, fails or is aborted.
 */
export function rateLimited(backend: Backend, limiter: CallLimiter): Backend {
  return {
    type: backend.type,
    model: backend.model,
    async *stream(request): AsyncIterable<ModelStreamPart> {
      const release = await limiter.acquire(request.signal);
      try {
        yield* backend.stream(request);
      } finally {
        release();
      }
    },
    ...(backend.close ? { close: () => backend.close!() } : {}),
  };
}
