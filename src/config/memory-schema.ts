import { z } from 'zod';

/** Default characters of remembered text put in each agent's context before a run. */
export const DEFAULT_MEMORY_BUDGET_CHARS = 2000;
/** Default number of memories retrieved before a run (and by `search_memory`). */
export const DEFAULT_MEMORY_TOP_K = 8;

/** Where embeddings for the memory store come from (docs/memory.md). */
export const MemoryEmbeddingConfigSchema = z.strictObject({
  /**
   * `openai` (or any OpenAI-compatible server with `base_url`) through the AI SDK's `embedMany`;
   * `local`: a GGUF file run by node-llama-cpp; `none`: keyword search only.
   */
  type: z.enum(['openai', 'local', 'none']),
  /** The embedding model (`text-embedding-3-small`), or the GGUF path for `local` (relative to the config). */
  model: z.string().min(1).optional(),
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  /** Default: `OPENAI_API_KEY` from the environment. */
  api_key: z.string().optional(),
});

/** `memory:` — what a team remembers across runs and sessions (docs/memory.md). */
export const MemoryConfigSchema = z.strictObject({
  enabled: z.boolean().default(false),
  /** `project`: memories of this project (`store` under the working directory); `user`: shared by all projects. */
  scope: z.enum(['project', 'user']).default('project'),
  /** The store's folder. Default: `.massgen/memory` in the project (`project`) or the home folder (`user`). */
  store: z.string().min(1).optional(),
  /** Characters of memories put in each agent's context before a run (about a quarter as many tokens). */
  budget_chars: z.int().min(0).default(DEFAULT_MEMORY_BUDGET_CHARS),
  /** Memories retrieved before a run and per `search_memory` call. */
  top_k: z.int().min(1).max(100).default(DEFAULT_MEMORY_TOP_K),
  /** Extract facts and decisions from each finished run (one model call, with a fallback). */
  extract: z.boolean().default(true),
  /** Offer agents `search_memory` and `save_memory`. */
  tools: z.boolean().default(true),
  /**
   * What an agent's `save_memory` call comes to (and its `memory/*.md` files in filesystem mode): `auto`
   * saves it; `ask` (the default) holds it for a person's approval, like an `ask` permission rule, and
   * refuses it where nobody can answer; `off` offers no `save_memory`. Anything saved reaches later runs'
   * agents, so by default a person sees it first (docs/memory.md#who-may-save).
   */
  save: z.enum(['auto', 'ask', 'off']).default('ask'),
  /** Embeddings for hybrid (keyword + vector) search. Omitted: keyword search only (said in the warnings). */
  embedding: MemoryEmbeddingConfigSchema.optional(),
});

export type MemoryConfig = z.output<typeof MemoryConfigSchema>;
export type MemoryEmbeddingConfig = z.output<typeof MemoryEmbeddingConfigSchema>;
