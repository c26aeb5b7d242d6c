import type { BackendPreset, BackendSettings } from '../types/backend.js';
import { isLoopbackUrl } from './is-loopback-url.js';

/** A hosted OpenAI-compatible provider: where it lives, which variable holds its key, and its other names. */
export interface OpenAICompatiblePreset extends BackendPreset {
  apiKeyEnv: string;
  hosts: readonly string[];
  /** Other names accepted for `provider:` (e.g. `kimi` for `moonshot`). */
  aliases: readonly string[];
}

/** OpenAI itself: the preset used when neither `provider:` nor a known `base_url` host says otherwise. */
export const DEFAULT_PRESET: OpenAICompatiblePreset = {
  name: 'openai',
  description: 'OpenAI Chat Completions (the default)',
  baseUrl: 'https://api.openai.com/v1',
  apiKeyEnv: 'OPENAI_API_KEY',
  hosts: ['api.openai.com'],
  aliases: [],
};

/**
 * The OpenAI Chat Completions compatible providers `chatcompletion` knows by name. Base URLs are the
 * providers' documented OpenAI-compatible endpoints; `hosts` match a `base_url` exactly or as a
 * domain suffix, so regional and legacy hosts of the same provider select it too.
 */
export const OPENAI_COMPATIBLE_PRESETS: readonly OpenAICompatiblePreset[] = [
  DEFAULT_PRESET,
  {
    name: 'cerebras',
    description: 'Cerebras Inference',
    baseUrl: 'https://api.cerebras.ai/v1',
    apiKeyEnv: 'CEREBRAS_API_KEY',
    hosts: ['cerebras.ai'],
    aliases: [],
  },
  {
    name: 'together',
    description: 'Together AI',
    baseUrl: 'https://api.together.xyz/v1',
    apiKeyEnv: 'TOGETHER_API_KEY',
    hosts: ['together.xyz', 'together.ai'],
    aliases: [],
  },
  {
    name: 'fireworks',
    description: 'Fireworks AI',
    baseUrl: 'https://api.fireworks.ai/inference/v1',
    apiKeyEnv: 'FIREWORKS_API_KEY',
    hosts: ['fireworks.ai'],
    aliases: [],
  },
  {
    name: 'groq',
    description: 'Groq',
    baseUrl: 'https://api.groq.com/openai/v1',
    apiKeyEnv: 'GROQ_API_KEY',
    hosts: ['groq.com'],
    aliases: [],
  },
  {
    name: 'openrouter',
    description: 'OpenRouter',
    baseUrl: 'https://openrouter.ai/api/v1',
    apiKeyEnv: 'OPENROUTER_API_KEY',
    hosts: ['openrouter.ai'],
    aliases: [],
  },
  {
    // Nebius AI Studio became Nebius Token Factory; its docs now give api.tokenfactory.nebius.com (regional
    // hosts are api.tokenfactory.<region>.nebius.com). The old api.studio.nebius.ai/.com hosts still
    // select this preset through the domain suffixes.
    name: 'nebius',
    description: 'Nebius Token Factory (formerly AI Studio)',
    baseUrl: 'https://api.tokenfactory.nebius.com/v1',
    apiKeyEnv: 'NEBIUS_API_KEY',
    hosts: ['nebius.com', 'nebius.ai'],
    aliases: [],
  },
  {
    name: 'moonshot',
    description: 'Moonshot AI (Kimi)',
    baseUrl: 'https://api.moonshot.ai/v1',
    apiKeyEnv: 'MOONSHOT_API_KEY',
    // moonshot.cn is the mainland China endpoint.
    hosts: ['moonshot.ai', 'moonshot.cn'],
    aliases: ['kimi'],
  },
  {
    name: 'zai',
    description: 'Z.ai (GLM)',
    baseUrl: 'https://api.z.ai/api/paas/v4',
    apiKeyEnv: 'ZAI_API_KEY',
    // open.bigmodel.cn is the mainland China endpoint of the same platform.
    hosts: ['z.ai', 'bigmodel.cn'],
    aliases: ['glm'],
  },
  {
    name: 'qwen',
    description: 'Alibaba Cloud Model Studio (Qwen, DashScope international)',
    baseUrl: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1',
    apiKeyEnv: 'DASHSCOPE_API_KEY',
    // Exact hosts: aliyuncs.com as a suffix would claim every Alibaba Cloud service.
    hosts: ['dashscope-intl.aliyuncs.com', 'dashscope.aliyuncs.com', 'dashscope-us.aliyuncs.com'],
    aliases: [],
  },
  {
    name: 'poe',
    description: 'Poe',
    baseUrl: 'https://api.poe.com/v1',
    apiKeyEnv: 'POE_API_KEY',
    hosts: ['poe.com'],
    aliases: [],
  },
  {
    name: 'deepseek',
    description: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com/v1',
    apiKeyEnv: 'DEEPSEEK_API_KEY',
    hosts: ['deepseek.com'],
    aliases: [],
  },
  {
    name: 'mistral',
    description: 'Mistral AI',
    baseUrl: 'https://api.mistral.ai/v1',
    apiKeyEnv: 'MISTRAL_API_KEY',
    hosts: ['mistral.ai'],
    aliases: [],
  },
];

/** The preset named `nameOrAlias` (case-insensitive; aliases such as `kimi` and `glm` count), if any. */
export function findPreset(nameOrAlias: string | undefined): OpenAICompatiblePreset | undefined {
  if (nameOrAlias === undefined) return undefined;
  const wanted = nameOrAlias.trim().toLowerCase();
  return OPENAI_COMPATIBLE_PRESETS.find(
    (preset) => preset.name === wanted || preset.aliases.includes(wanted),
  );
}

/**
 * The preset whose host serves `url` (exact host, or a subdomain of a listed domain), if any. Unknown
 * hosts, loopback addresses and unparseable URLs give undefined.
 */
export function presetForBaseUrl(url: string | undefined): OpenAICompatiblePreset | undefined {
  if (url === undefined) return undefined;
  let hostname: string;
  try {
    hostname = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return undefined;
  }
  return OPENAI_COMPATIBLE_PRESETS.find((preset) =>
    preset.hosts.some((host) => hostname === host || hostname.endsWith(`.${host}`)),
  );
}

/**
 * Presets as the registry lists them: every preset, then one row per alias so that validating
 * `provider:` against the names alone accepts aliases too.
 */
export function presetListWithAliases(): readonly BackendPreset[] {
  const aliasRows = OPENAI_COMPATIBLE_PRESETS.flatMap((preset) =>
    preset.aliases.map((alias) => ({
      name: alias,
      description: `Alias of ${preset.name}: ${preset.description}`,
      baseUrl: preset.baseUrl,
      apiKeyEnv: preset.apiKeyEnv,
    })),
  );
  return [...OPENAI_COMPATIBLE_PRESETS, ...aliasRows];
}

/**
 * `provider:` when it names a preset, else the `base_url` host's preset, else OpenAI. An unknown
 * `provider:` is the config layer's error to report; here it falls through so `create()` never throws.
 */
export function selectPreset(
  settings: Pick<BackendSettings, 'baseUrl' | 'provider'>,
): OpenAICompatiblePreset {
  return findPreset(settings.provider) ?? presetForBaseUrl(settings.baseUrl) ?? DEFAULT_PRESET;
}

/**
 * The variable `chatcompletion` reads its key from: the named preset's; none for a loopback server
 * without `provider:` (a local server should not receive a cloud key by accident); else the preset's.
 */
export function chatCompletionKeyEnvs(settings: Pick<BackendSettings, 'baseUrl' | 'provider'>): string[] {
  const named = findPreset(settings.provider);
  if (named !== undefined) return [named.apiKeyEnv];
  if (isLoopbackUrl(settings.baseUrl)) return [];
  return [selectPreset(settings).apiKeyEnv];
}
