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

/**
 * `memory.compression:` — context that never overflows (docs/compression.md). MassGen's keys
 * (`trigger_threshold`, `target_ratio`) with its defaults; on by default for every agent whose model's
 * context window is known.
 */
export const CompressionConfigSchema = z
  .strictObject({
    /** Summarise older steps instead of only trimming them. */
    enabled: z.boolean().default(true),
    /** Share of the model's context window past which a request is compressed before it is sent. */
    trigger_threshold: z.number().gt(0).lt(1).default(0.75),
    /** Share of the window a compressed request aims for (older steps summarised, recent ones verbatim). */
    target_ratio: z.number().gt(0).lt(1).default(0.4),
    /** The model that writes the summaries, on the agent's own backend. Default: the agent's model. */
    model: z.string().min(1).optional(),
    /**
     * Tool results longer than this many tokens (about 4 characters each) go to a file in the agent's
     * workspace (`.tool_results/`); the model gets the head, the tail and the path to read the rest.
     */
    tool_result_file_threshold: z.int().min(500).default(20_000),
  })
  .refine((c) => c.target_ratio < c.trigger_threshold, {
    message:
      'target_ratio must be below trigger_threshold (compression aims below the point that triggers it)',
    path: ['target_ratio'],
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
  /** Summarising older steps near the context window; large tool results to files (docs/compression.md). */
  compression: CompressionConfigSchema.prefault({}),
});

export type MemoryConfig = z.output<typeof MemoryConfigSchema>;
export type CompressionConfig = z.output<typeof CompressionConfigSchema>;
export type MemoryEmbeddingConfig = z.output<typeof MemoryEmbeddingConfigSchema>;
