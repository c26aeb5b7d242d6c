import type { BackendFactory, BackendSettings, LocalModelSettings } from '../../types/backend.js';
import { ConfigError } from '../../types/errors.js';
import { createLanguageModelBackend } from '../ai-sdk/language-model-backend.js';
import { mediaGate, NO_MEDIA_IN } from '../media-input.js';
import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import type * as LlamaRuntime from './llama-language-model.js';
import { cachePath, ensureModelFile, parseModelRef } from './model-files.js';

export { DEFAULT_LOCAL_MODEL } from './default-model.js';
export { defaultThreads } from './default-threads.js';

/** llama.cpp (node-llama-cpp) is loaded by the first `local` agent's first call, never at start. */
let runtime: Promise<typeof LlamaRuntime> | null = null;
const loadRuntime = () => (runtime ??= import('./llama-language-model.js'));

/** Frees every local model and context (a no-op when no local model was ever loaded). */
export async function disposeLocalModels(): Promise<void> {
  if (runtime === null) return;
  await (await import('./model-pool.js')).disposeLocalModels();
}

/**
 * The local model as an AI SDK language model whose llama.cpp side loads on first use: a run without
 * `type: local` agents never imports node-llama-cpp.
 */
function lazyLlamaModel(
  options: Parameters<typeof LlamaRuntime.createLlamaLanguageModel>[0],
): LanguageModelV3 {
  let model: Promise<LanguageModelV3> | null = null;
  const load = () => (model ??= loadRuntime().then((m) => m.createLlamaLanguageModel(options)));
  return {
    specificationVersion: 'v3',
    provider: 'local',
    modelId: options.modelId,
    supportedUrls: {},
    doGenerate: async (call: LanguageModelV3CallOptions) => (await load()).doGenerate(call),
    doStream: async (call: LanguageModelV3CallOptions) => (await load()).doStream(call),
  };
}

function localSettings(settings: BackendSettings): LocalModelSettings {
  if (!settings.local) throw new ConfigError('the local backend needs its model folder settings (internal)');
  return settings.local;
}

/** The file a `model:` value names: the path itself, or where a `hf:` reference is cached. */
export function localModelPath(model: string, modelDir: string): string {
  const ref = parseModelRef(model);
  return ref.kind === 'path' ? ref.path : cachePath(ref, modelDir);
}

/**
 * `type: local` — a GGUF model run in this process by llama.cpp (node-llama-cpp), exposed as an AI
 * SDK `LanguageModelV3` so it takes the same path as every other backend. `model` is a file path or
 * `hf:<user>/<repo>/<file>.gguf`; `prepare` downloads and checks it before any agent starts. Agents
 * naming the same model share one loaded copy, each with its own context sequence.
 */
export const localBackend: BackendFactory = {
  type: 'local',
  description:
    'A GGUF model run in-process by llama.cpp: no key, no server (model: path or hf:user/repo/file.gguf)',
  capabilities: {
    streaming: true,
    tools: true,
    webSearch: false,
    codeExecution: false,
    reasoning: false,
    imagesIn: false,
  },
  apiKeyEnvs: () => [],
  defaultBaseUrl: () => undefined,
  keyOptional: () => true,
  // llama.cpp runs text models here; a part that arrives anyway becomes a line of text (see prompt.ts).
  mediaIn: NO_MEDIA_IN,
  async prepare(settings, context) {
    const local = localSettings(settings);
    await ensureModelFile(settings.model, {
      modelDir: local.modelDir,
      hubEndpoint: local.hubEndpoint,
      ...(local.hubToken ? { hubToken: local.hubToken } : {}),
      ...(context.onProgress ? { onProgress: context.onProgress } : {}),
      ...(context.signal ? { signal: context.signal } : {}),
    });
  },
  create(settings) {
    const local = localSettings(settings);
    const model = lazyLlamaModel({
      modelId: settings.model,
      modelPath: localModelPath(settings.model, local.modelDir),
      local,
    });
    return createLanguageModelBackend({
      type: 'local',
      modelId: settings.model,
      model,
      providerName: 'local',
      // Media never reaches llama.cpp: each part that arrives anyway becomes a line naming it.
      media: { gate: mediaGate(NO_MEDIA_IN(), {}) },
      ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
      ...(settings.maxTokens === undefined ? {} : { maxTokens: settings.maxTokens }),
    });
  },
};
