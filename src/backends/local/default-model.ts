/**
 * The model `massgen "question"` runs when nothing is configured and no API key is set: Qwen2.5
 * 1.5B Instruct, 4-bit (Q4_K_M, about 0.9 GB). It follows instructions and JSON well for its size,
 * answers at a useful speed on a laptop CPU, and is Apache-2.0 licensed.
 */
export const DEFAULT_LOCAL_MODEL = 'hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf';
