import type { CapabilityParts, CapabilityProblems, ConfigPlace, RunContext } from '../../capability/index.js';
import type { AgentConfig, ConfigDiagnostic, MassGenConfig } from '../../config/index.js';
import { azureEndpoint } from '../../backends/azure-openai/azure-base-url.js';
import { isLoopbackUrl } from '../../backends/is-loopback-url.js';
import type { AgentSandbox } from '../agent-sandbox.js';
import type { ToolProvider } from '../tool-provider.js';
import type { Env } from '../../types/env.js';
import { ConfigError } from '../../types/errors.js';
import { createMediaGenerationToolProvider } from './media-generation-tool-provider.js';
import { DEFAULT_MEDIA_MODELS, MEDIA_JOBS_BY_PROVIDER, MEDIA_KEY_ENVS } from './media-models.js';
import type { MediaJob } from './media-tools.js';
import type { MediaModelSettings, MediaProvider } from './settings.js';
import { requestsMediaGeneration } from './capability.js';

/** `enable_image/audio/video_generation`: the media tools of each agent that asks for them. */
export async function prepare(_run: RunContext): Promise<CapabilityParts> {
  return {
    equip: ({ agent, sandbox }) => {
      if (!requestsMediaGeneration(agent)) return undefined;
      const provider = mediaGenerationToolProvider(agent, sandbox);
      return provider ? { providers: [provider] } : undefined;
    },
  };
}

/**
 * `--validate`: each agent's media models must exist and have a key. A key not set here is a warning
 * (a fact of this environment), the rest are errors.
 */
export function problems(config: MassGenConfig, place: ConfigPlace): CapabilityProblems {
  const errors: ConfigDiagnostic[] = [];
  const warnings: ConfigDiagnostic[] = [];
  config.agents.forEach((agent, index) => {
    const found: ConfigError[] = [];
    resolveMediaModels(agent, place.env, { index, problems: found });
    for (const error of found) {
      const diagnostic: ConfigDiagnostic = {
        path: error.path ?? `agents[${index}]`,
        message: error.message,
        ...(error.hint ? { hint: error.hint } : {}),
      };
      if (error.path?.endsWith('.api_key') || error.path?.endsWith('.api_key_env')) warnings.push(diagnostic);
      else errors.push(diagnostic);
    }
  });
  return { errors, warnings };
}

const PROVIDERS = Object.keys(MEDIA_JOBS_BY_PROVIDER) as MediaProvider[];
const isMediaProvider = (type: string): type is MediaProvider => (PROVIDERS as string[]).includes(type);

/** The MassGen key that asks for each job. */
const ENABLE_KEY = {
  image: 'enable_image_generation',
  speech: 'enable_audio_generation',
  transcription: 'enable_audio_generation',
  video: 'enable_video_generation',
} as const satisfies Record<MediaJob, string>;

/** What each job is called in messages. */
const JOB_LABEL: Record<MediaJob, string> = {
  image: 'image generation',
  speech: 'speech',
  transcription: 'transcription',
  video: 'video generation',
};

/** An example `media_generation` entry for a job, from the first provider that has a default for it. */
function example(job: MediaJob): string {
  const provider = PROVIDERS.find((p) => DEFAULT_MEDIA_MODELS[p][job] !== undefined);
  return provider
    ? `{type: ${provider}, model: ${DEFAULT_MEDIA_MODELS[provider][job]}}`
    : '{type: …, model: …}';
}

/** The jobs an agent's config asks for: MassGen's `enable_*_generation` keys. */
export function requestedMediaJobs(agent: AgentConfig): MediaJob[] {
  const { backend } = agent;
  return [
    ...(backend.enable_image_generation ? (['image'] as const) : []),
    ...(backend.enable_audio_generation ? (['speech', 'transcription'] as const) : []),
    ...(backend.enable_video_generation ? (['video'] as const) : []),
  ];
}

/**
 * The model, endpoint and key of each media job an agent asks for, from `backend.media_generation`
 * and otherwise its own provider (its `base_url`, `api_key` and `headers` when the provider is its own;
 * keys from the run's environment as the backends read them). Throws the first problem, or with
 * `problems` collects them all (`--validate`). `index` names the agent's place in messages when known.
 */
export function resolveMediaModels(
  agent: AgentConfig,
  env: Env,
  options: { index?: number; problems?: ConfigError[] } = {},
): Partial<Record<MediaJob, MediaModelSettings>> {
  const { index, problems } = options;
  const { backend } = agent;
  const where = index === undefined ? `agent "${agent.id}"` : `agents[${index}] (${agent.id})`;
  const at = (key: string) => (index === undefined ? {} : { path: `agents[${index}].backend.${key}` });
  const report = (error: ConfigError): void => {
    if (!problems) throw error;
    problems.push(error);
  };
  const models: Partial<Record<MediaJob, MediaModelSettings>> = {};
  for (const job of requestedMediaJobs(agent)) {
    const entry = backend.media_generation?.[job];
    const key = entry ? `media_generation.${job}` : ENABLE_KEY[job];
    const type = entry?.type ?? backend.type;
    const able = PROVIDERS.filter((p) => MEDIA_JOBS_BY_PROVIDER[p].includes(job));
    if (!isMediaProvider(type) || !MEDIA_JOBS_BY_PROVIDER[type].includes(job)) {
      report(
        new ConfigError(`${where}: ${ENABLE_KEY[job]}: the ${type} backend has no ${JOB_LABEL[job]} model`, {
          ...at(key),
          hint: `backends with one: ${able.join(', ')} — or set backend.media_generation.${job}: ${example(job)}`,
        }),
      );
      continue;
    }
    const model = entry?.model ?? DEFAULT_MEDIA_MODELS[type][job];
    if (model === undefined) {
      report(
        new ConfigError(`${where}: ${ENABLE_KEY[job]}: name the ${type} ${JOB_LABEL[job]} model to use`, {
          ...at(`media_generation.${job}.model`),
          hint: `set backend.media_generation.${job}.model${type === 'azure_openai' ? ' (your deployment name)' : ''}`,
        }),
      );
      continue;
    }
    const own = type === backend.type;
    const baseUrl =
      entry?.base_url ??
      (own ? backend.base_url : undefined) ??
      (type === 'azure_openai' ? env.AZURE_OPENAI_ENDPOINT || undefined : undefined);
    if (type === 'azure_openai' && baseUrl === undefined) {
      report(
        new ConfigError(`${where}: ${key}: azure_openai needs base_url (your Azure OpenAI endpoint)`, {
          ...at(entry ? `media_generation.${job}.base_url` : 'base_url'),
          hint: 'e.g. base_url: https://<resource>.openai.azure.com, or set AZURE_OPENAI_ENDPOINT',
        }),
      );
      continue;
    }
    let endpoint: { baseURL: string; apiVersion?: string } | undefined;
    if (type === 'azure_openai') {
      try {
        endpoint = azureEndpoint(baseUrl!);
      } catch {
        report(
          new ConfigError(`${where}: ${key}: the Azure endpoint is not a URL: ${baseUrl}`, {
            ...at(entry ? `media_generation.${job}.base_url` : 'base_url'),
            hint: 'e.g. https://<resource>.openai.azure.com',
          }),
        );
        continue;
      }
    }
    const keyEnvs = entry?.api_key_env ? [entry.api_key_env] : MEDIA_KEY_ENVS[type];
    const apiKey =
      (entry?.api_key_env === undefined && own ? backend.api_key : undefined) ??
      keyEnvs.map((name) => env[name]).find((value) => value !== undefined && value !== '');
    // The agent's own key is reported by the backend check already; a local server may need none.
    if (!apiKey && !isLoopbackUrl(baseUrl) && !(own && entry?.api_key_env === undefined)) {
      report(
        new ConfigError(
          `${where}: ${key}: ${JOB_LABEL[job]} on ${type} needs an API key — set the ${keyEnvs.join(' or ')} environment variable`,
          {
            ...at(entry ? `media_generation.${job}.api_key_env` : 'api_key'),
            hint: `export ${keyEnvs[0]}=… or put it in a .env file in this folder`,
          },
        ),
      );
      continue;
    }
    models[job] = {
      provider: type,
      model,
      ...(apiKey ? { apiKey } : {}),
      ...(endpoint ? { baseUrl: endpoint.baseURL } : baseUrl === undefined ? {} : { baseUrl }),
      ...(endpoint?.apiVersion === undefined ? {} : { apiVersion: endpoint.apiVersion }),
      ...(own && backend.headers ? { headers: { ...backend.headers } } : {}),
      ...(isLoopbackUrl(baseUrl) ? { local: true } : {}),
    };
  }
  return models;
}

/**
 * The media tools of one agent (docs/multimodal.md, "Media out"), or undefined when it asks for none.
 * Generated files land in its workspace, so an agent without one (`backend.cwd`) is a config error.
 */
export function mediaGenerationToolProvider(
  agent: AgentConfig,
  sandbox: AgentSandbox | undefined,
): ToolProvider | undefined {
  const jobs = requestedMediaJobs(agent);
  if (jobs.length === 0) return undefined;
  if (!sandbox) {
    const key = ENABLE_KEY[jobs[0]!];
    throw new ConfigError(`agent "${agent.id}": ${key} needs a workspace for the generated files`, {
      hint: `give it one: backend.cwd: ${agent.id}_workspace`,
    });
  }
  return createMediaGenerationToolProvider({
    workspace: sandbox.workspace,
    models: resolveMediaModels(agent, sandbox.env),
    checkPath: sandbox.checkPath,
  });
}
