/** Enough for every distinct provider, server and model of the largest teams; the oldest goes first. */
const MAX_MODELS = 64;
const models = new Map<string, unknown>();

/**
 * One provider model instance for every agent whose connection settings (`key`: base URL, key, headers,
 * model, body extras — everything the instance closes over) are identical. A model is stateless between
 * calls, and each instance builds its own response schemas, which validate every streamed chunk and get
 * fast only after their first uses: 64 agents on one server otherwise pay that 64 times over, in CPU,
 * memory and event-loop lag. `create` may return the model with what goes with it (a stream reader).
 */
export function sharedModel<T>(key: Record<string, unknown>, create: () => T): T {
  const id = JSON.stringify(key);
  let model = models.get(id) as T | undefined;
  if (model === undefined) {
    model = create();
    if (models.size >= MAX_MODELS) models.delete(models.keys().next().value!);
    models.set(id, model);
  }
  return model;
}
