import type { Backend, ModelStreamPart } from '../types/backend.js';

/**
 * A backend whose implementation — and the provider package behind it — loads on its first call, so a
 * run imports only the provider packages its agents use. Checks that need no package stay in `create`
 * and still fail before the run starts.
 */
export function lazyBackend(type: string, model: string, load: () => Promise<Backend>): Backend {
  let backend: Promise<Backend> | null = null;
  return {
    type,
    model,
    async *stream(request): AsyncIterable<ModelStreamPart> {
      yield* (await (backend ??= load())).stream(request);
    },
  };
}
