import { existsSync } from 'node:fs';
import type { MassGenConfig } from '../config/index.js';
import { DEFAULT_INFERENCE_CANDIDATES } from '../backends/local-servers/index.js';
import { hubUrl, parseModelRef } from '../backends/local/model-ref.js';
import { localModelPath } from '../backends/local/index.js';
import { KNOWN_MODEL_BYTES } from '../backends/local/default-model.js';
import { ConfigError } from '../types/errors.js';
import { loadConfigBackends } from '../backends/registry.js';
import { resolveAgentSettings, type Env } from './build-agents.js';

export { probeServer } from '../backends/local-servers/index.js';

/** A local model file the config's `type: local` agents load. */
export interface ModelPrerequisite {
  kind: 'model';
  agentIds: string[];
  /** The `model:` value, as written. */
  model: string;
  /** Where the file is (or will be cached). */
  file: string;
  present: boolean;
  /** The hub URL it is downloaded from (`hf:` references only). */
  url?: string;
  /** The hub, for messages (`MASSGEN_HF_ENDPOINT`, else huggingface.co). */
  hub?: string;
  /** The download's size, for the models the bundled examples use (the hub is not asked). */
  bytes?: number;
}

/** A server on this machine that the config's agents talk to (Ollama, vLLM, SGLang, LM Studio). */
export interface ServerPrerequisite {
  kind: 'server';
  agentIds: string[];
  backendType: string;
  /** Any one answering will do (`type: inference` without base_url tries several). */
  urls: string[];
  /** How to start it. */
  hint: string;
}

export type Prerequisite = ModelPrerequisite | ServerPrerequisite;

/** How to start each kind of local server (a config's `type`). */
const SERVER_HINTS: Record<string, (model: string) => string> = {
  ollama: (model) => `start it: ollama serve (and ollama pull ${model})`,
  vllm: (model) => `start it: vllm serve ${model}`,
  sglang: (model) => `start it: python -m sglang.launch_server --model-path ${model}`,
  lmstudio: () => "start LM Studio's local server",
  inference: () => 'start vLLM or SGLang, or set base_url to your server',
};

/**
 * What a config needs on this machine besides its keys, found without the network: each local model
 * file (present or still to download) and each local server its agents talk to (to be probed by the
 * caller). Agents sharing a model file or a server are listed together. Agents whose settings do not
 * resolve are left out (their problems are the config's, reported elsewhere).
 */
export async function configPrerequisites(config: MassGenConfig, env: Env): Promise<Prerequisite[]> {
  await loadConfigBackends(config);
  const out: Prerequisite[] = [];
  config.agents.forEach((agent, index) => {
    let settings;
    try {
      ({ settings } = resolveAgentSettings(agent, index, env, []));
    } catch (error) {
      if (error instanceof ConfigError) return;
      throw error;
    }
    if (settings.type === 'local' && settings.local) {
      let model: ModelPrerequisite;
      try {
        const ref = parseModelRef(settings.model);
        const file = localModelPath(settings.model, settings.local.modelDir);
        model = {
          kind: 'model',
          agentIds: [agent.id],
          model: settings.model,
          file,
          present: existsSync(file),
          ...(ref.kind === 'hub'
            ? { url: hubUrl(ref, settings.local.hubEndpoint), hub: settings.local.hubEndpoint }
            : {}),
          ...(KNOWN_MODEL_BYTES[settings.model] === undefined
            ? {}
            : { bytes: KNOWN_MODEL_BYTES[settings.model] }),
        };
      } catch (error) {
        if (error instanceof ConfigError) return;
        throw error;
      }
      const same = out.find((p): p is ModelPrerequisite => p.kind === 'model' && p.file === model.file);
      if (same) same.agentIds.push(agent.id);
      else out.push(model);
      return;
    }
    const hint = SERVER_HINTS[settings.type];
    if (hint === undefined) return;
    const urls =
      settings.baseUrl !== undefined
        ? [settings.baseUrl]
        : DEFAULT_INFERENCE_CANDIDATES.map((candidate) => candidate.baseUrl);
    const key = urls.join(' ');
    const same = out.find((p): p is ServerPrerequisite => p.kind === 'server' && p.urls.join(' ') === key);
    if (same) same.agentIds.push(agent.id);
    else
      out.push({
        kind: 'server',
        agentIds: [agent.id],
        backendType: settings.type,
        urls,
        hint: hint(settings.model),
      });
  });
  return out;
}
