/** Test helpers shared by the local-model tests (excluded from the build, like every `*.test-support.ts`). */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';
import type { Backend } from '../../types/backend.js';
import { createLanguageModelBackend } from '../ai-sdk/language-model-backend.js';
import { LlamaLanguageModel } from './llama-language-model.js';
import { acquireLocalModel, type LocalModelKey } from './model-pool.js';

/**
 * The shared tiny test model: stories260K (TinyStories llama, 1.2 MB, 512-token vocabulary, context 2048,
 * no chat template) in the workplace's `shared/models/` folder beside the repository.
 */
export const TINY_MODEL_PATH = fileURLToPath(
  new URL('../../../../shared/models/stories260K.gguf', import.meta.url),
);
export const tinyModelExists = existsSync(TINY_MODEL_PATH);

/** `describe`, skipped with the reason in its title when the tiny model is not there. */
export function describeWithTinyModel(name: string, body: () => void): void {
  const title = tinyModelExists ? name : `${name} (skipped: ../shared/models/stories260K.gguf not found)`;
  describe.skipIf(!tinyModelExists)(title, body);
}

/**
 * A pool key for the tiny model: CPU, 1 thread (2 threads are far slower on 2-core machines), its full
 * 2,048-token context (its 512-token vocabulary makes tool schemas long), no flash attention (3x slower
 * prompt evaluation for this model on a CPU).
 */
export function tinyModelKey(overrides: Partial<LocalModelKey> = {}): LocalModelKey {
  return {
    modelPath: TINY_MODEL_PATH,
    gpu: false,
    threads: 1,
    contextSize: 2048,
    flashAttention: false,
    ...overrides,
  };
}

/** A `local` backend on the tiny model, built the way the factory builds one. */
export function tinyBackend(
  options: { key?: Partial<LocalModelKey>; temperature?: number; maxTokens?: number } = {},
): { backend: Backend; model: LlamaLanguageModel } {
  const model = new LlamaLanguageModel({
    modelId: 'stories260K',
    handle: acquireLocalModel(tinyModelKey(options.key)),
  });
  const backend = createLanguageModelBackend({
    type: 'local',
    modelId: 'stories260K',
    model,
    providerName: 'local',
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
  });
  return { backend, model };
}

/** About `count` tokens of story text for the tiny model (its vocabulary is small: ~3 characters a token). */
export function longText(count: number): string {
  const sentence = 'Once upon a time, a little girl named Lily went to the park with her mom. ';
  return sentence.repeat(Math.ceil(count / 18));
}
