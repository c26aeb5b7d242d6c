/**
 * The model `massgen "question"` runs when nothing is configured and no API key is set: Qwen2.5
 * 1.5B Instruct, 4-bit (Q4_K_M, 1.1 GB). It follows instructions and JSON well for its size,
 * answers at a useful speed on a laptop CPU, and is Apache-2.0 licensed.
 */
export const DEFAULT_LOCAL_MODEL = 'hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf';

/**
 * Sizes of the models the bundled examples download, in bytes (the hub's `x-linked-size`), so a front
 * end can say how large a download is before it starts — without asking the hub.
 */
export const KNOWN_MODEL_BYTES: Readonly<Record<string, number>> = {
  [DEFAULT_LOCAL_MODEL]: 1_117_320_736,
};
