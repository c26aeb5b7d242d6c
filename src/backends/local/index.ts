import type { BackendFactory, BackendSettings, LocalModelSettings } from '../../types/backend.js';
import { ConfigError } from '../../types/errors.js';
import { createLanguageModelBackend } from '../ai-sdk/language-model-backend.js';
import { createLlamaLanguageModel } from './llama-language-model.js';
import { cachePath, ensureModelFile, parseModelRef } from './model-files.js';

export { DEFAULT_LOCAL_MODEL } from './default-model.js';
export { defaultThreads } from './default-threads.js';
export { disposeLocalModels, localModelPoolStats } from './model-pool.js';

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
  async prepare(settings, context) {
    const local = localSettings(settings);
    await ensureModelFile(settings.model, {
      modelDir: local.modelDir,
      hubEndpoint: local.hubEndpoint,
      ...(context.onProgress ? { onProgress: context.onProgress } : {}),
      ...(context.signal ? { signal: context.signal } : {}),
    });
  },
  create(settings) {
    const local = localSettings(settings);
    const model = createLlamaLanguageModel({
      modelId: settings.model,
      modelPath: localModelPath(settings.model, local.modelDir),
      local,
    });
    return createLanguageModelBackend({
      type: 'local',
      modelId: settings.model,
      model,
      providerName: 'local',
      ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
      ...(settings.maxTokens === undefined ? {} : { maxTokens: settings.maxTokens }),
    });
  },
};
