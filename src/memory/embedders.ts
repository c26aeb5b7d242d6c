import path from 'node:path';
import type { MemoryEmbeddingConfig } from '../config/index.js';
import { defaultThreads } from '../util/default-threads.js';
import type { Embedder } from './types.js';

/** Default embedding model of `memory.embedding.type: openai`. */
export const DEFAULT_OPENAI_EMBEDDING_MODEL = 'text-embedding-3-small';

/**
 * Embeddings from an OpenAI(-compatible) `/embeddings` endpoint through the AI SDK's `embedMany`
 * (which batches large requests). Imported only when a run with memory embeddings needs it.
 */
export async function openAIEmbedder(options: {
  model: string;
  apiKey: string;
  baseURL?: string;
}): Promise<Embedder> {
  const [{ embedMany }, { createOpenAI }] = await Promise.all([import('ai'), import('@ai-sdk/openai')]);
  const provider = createOpenAI({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
  });
  const model = provider.embedding(options.model);
  return {
    name: `openai:${options.model}`,
    async embed(texts) {
      if (texts.length === 0) return [];
      const { embeddings } = await embedMany({ model, values: [...texts], maxRetries: 2 });
      return embeddings;
    },
  };
}

/** Embeddings from a GGUF model on this machine (node-llama-cpp's embedding context). */
export async function localEmbedder(modelPath: string): Promise<Embedder> {
  const { getLlama } = await import('node-llama-cpp');
  const llama = await getLlama({ gpu: false, logLevel: 'error' as never });
  const model = await llama.loadModel({ modelPath });
  // llama.cpp's default (every core) spins its threads against each other on a small machine: one
  // embedding of a sentence took seconds on a loaded 2-core machine, against milliseconds on one thread.
  const context = await model.createEmbeddingContext({ threads: defaultThreads() });
  // One call at a time: an embedding context evaluates one sequence.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    name: `local:${path.basename(modelPath)}`,
    embed(texts) {
      const run = queue.then(async () => {
        const out: number[][] = [];
        for (const text of texts) out.push(Array.from((await context.getEmbeddingFor(text)).vector));
        return out;
      });
      queue = run.catch(() => {});
      return run;
    },
    async close() {
      await context.dispose();
      await model.dispose();
    },
  };
}

/** The embedder a `memory.embedding` config names, or null (keyword only) with the reason. */
export async function embedderFor(
  config: MemoryEmbeddingConfig | undefined,
  env: Readonly<Record<string, string | undefined>>,
  baseDir: string,
): Promise<{ embedder: Embedder | null; reason: string | null }> {
  if (config === undefined || config.type === 'none') {
    return {
      embedder: null,
      reason: 'no embedding model configured (memory.embedding): keyword search only',
    };
  }
  if (config.type === 'local') {
    if (!config.model)
      return { embedder: null, reason: 'memory.embedding.type local needs model: a .gguf path' };
    return { embedder: await localEmbedder(path.resolve(baseDir, config.model)), reason: null };
  }
  const apiKey = config.api_key ?? env.OPENAI_API_KEY;
  if (!apiKey && !config.base_url) {
    return { embedder: null, reason: 'no OPENAI_API_KEY for memory.embedding: keyword search only' };
  }
  return {
    embedder: await openAIEmbedder({
      model: config.model ?? DEFAULT_OPENAI_EMBEDDING_MODEL,
      apiKey: apiKey ?? 'not-needed',
      ...(config.base_url ? { baseURL: config.base_url } : {}),
    }),
    reason: null,
  };
}
