import { parse } from 'yaml';
import { backendFacts } from '../../backends/backend-table.js';
import { DEFAULT_LOCAL_MODEL } from '../../backends/local/default-model.js';
import { listExamples, readExample } from '../../config/examples.js';
import { ConfigError } from '../../types/errors.js';
import type { Env } from '../build-agents.js';
import { isRecord } from '../../util/guards.js';

/** A provider the wizard offers: one backend `type` (and `chatcompletion` preset) of the registry. */
export interface ProviderChoice {
  /** What the user types: `openai`, `claude`, `gemini`, `grok`, `openrouter`, `groq`, `local`. */
  id: string;
  label: string;
  /** The config's `backend.type` and, for a `chatcompletion` preset, `backend.provider`. */
  type: string;
  provider?: string;
  /** The variables the registry reads the key from, in order of preference (empty: no key). */
  keyEnvs: readonly string[];
  /** Where to get a key. */
  keyUrl?: string;
  /** The default model when the chosen preset has no agent on this provider. */
  defaultModel: string;
}

const PROVIDERS: readonly Omit<ProviderChoice, 'keyEnvs'>[] = [
  {
    id: 'openai',
    label: 'OpenAI (GPT-5)',
    type: 'openai',
    keyUrl: 'https://platform.openai.com/api-keys',
    defaultModel: 'gpt-5-mini',
  },
  {
    id: 'claude',
    label: 'Anthropic Claude',
    type: 'claude',
    keyUrl: 'https://console.anthropic.com/settings/keys',
    defaultModel: 'claude-sonnet-4-5',
  },
  {
    id: 'gemini',
    label: 'Google Gemini',
    type: 'gemini',
    keyUrl: 'https://aistudio.google.com/apikey',
    defaultModel: 'gemini-2.5-flash',
  },
  {
    id: 'grok',
    label: 'xAI Grok',
    type: 'grok',
    keyUrl: 'https://console.x.ai',
    defaultModel: 'grok-4-fast',
  },
  {
    id: 'openrouter',
    label: "OpenRouter (many vendors' models, one key)",
    type: 'chatcompletion',
    provider: 'openrouter',
    keyUrl: 'https://openrouter.ai/keys',
    defaultModel: 'openai/gpt-5-mini',
  },
  {
    id: 'groq',
    label: 'Groq (fast open models)',
    type: 'chatcompletion',
    provider: 'groq',
    keyUrl: 'https://console.groq.com/keys',
    defaultModel: 'llama-3.3-70b-versatile',
  },
  {
    id: 'local',
    label: 'A local model run in this process (1.1 GB, downloaded once)',
    type: 'local',
    defaultModel: DEFAULT_LOCAL_MODEL,
  },
];

/** The providers the wizard offers, with their key variables taken from the backend registry. */
export function providerChoices(): ProviderChoice[] {
  return PROVIDERS.map((choice) => {
    const facts = backendFacts(choice.type, { provider: choice.provider });
    if (!facts) throw new Error(`setup wizard: backend type "${choice.type}" is not registered`);
    return { ...choice, keyEnvs: facts.keyEnvs };
  });
}

/** The key variable that is set for `choice` (in `env`), if any. */
export function keyEnvSet(choice: ProviderChoice, env: Env): string | undefined {
  return choice.keyEnvs.find((name) => (env[name] ?? '') !== '');
}

/** A team preset: a bundled example the wizard builds the user's team from. */
export interface TeamPreset {
  id: 'research' | 'coding' | 'qa' | 'local-only';
  label: string;
  /** `@examples/…` name of the file. */
  example: string;
  /** Only the local model: the providers chosen for the other presets are not used. */
  localOnly: boolean;
}

export const TEAM_PRESETS: readonly TeamPreset[] = [
  { id: 'research', label: 'Research', example: 'presets/research', localOnly: false },
  { id: 'coding', label: 'Coding', example: 'presets/coding', localOnly: false },
  { id: 'qa', label: 'Q&A', example: 'presets/qa', localOnly: false },
  { id: 'local-only', label: 'Local only', example: 'local/local_pair', localOnly: true },
];

/** The first sentence of a preset's file comment, for the menu. */
export function presetSummary(preset: TeamPreset): string {
  const description = listExamples().find((example) => example.name === preset.example)?.description ?? '';
  const first = /^.*?[.!?](?=\s|$)/.exec(description)?.[0] ?? description;
  return first.replace(/^[^:]{1,30}:\s*/, '');
}

type RawBackend = Record<string, unknown> & { type: string; model: string; provider?: string };
interface RawAgent {
  id: string;
  backend: RawBackend;
  system_message?: string;
}
/** A preset file as written: its agents (roles) and its other top-level sections. */
export interface PresetFile {
  agents: RawAgent[];
  settings: Record<string, unknown>;
}

/** Reads a preset's example file as written (no defaults filled in, so the output stays short). */
export function readPresetFile(preset: TeamPreset): PresetFile {
  const data: unknown = parse(readExample(preset.example));
  const bad = () => new ConfigError(`the bundled preset ${preset.example} is malformed`);
  if (!isRecord(data) || !Array.isArray(data.agents)) throw bad();
  const agents = data.agents.map((entry): RawAgent => {
    if (!isRecord(entry) || typeof entry.id !== 'string' || !isRecord(entry.backend)) throw bad();
    const { type, model } = entry.backend;
    if (typeof type !== 'string' || typeof model !== 'string') throw bad();
    return {
      id: entry.id,
      backend: { ...entry.backend, type, model },
      ...(typeof entry.system_message === 'string' ? { system_message: entry.system_message } : {}),
    };
  });
  if (agents.length === 0) throw bad();
  const settings = Object.fromEntries(Object.entries(data).filter(([key]) => key !== 'agents'));
  return { agents, settings };
}

/** Which wizard provider a preset agent's backend belongs to. */
function providerIdOf(backend: RawBackend): string {
  if (backend.type === 'chatcompletion') return String(backend.provider ?? 'openai-compatible');
  return backend.type;
}

/**
 * Backend keys that still make sense for another model of the same provider. The others (reasoning,
 * thinking, verbosity, provider tools, sampling pass-through) are model-specific and are dropped when
 * the user picks a different model than the preset's, so the team never asks a model for something
 * it cannot do (e.g. Google Search on a Gemini 2 model).
 */
const PORTABLE_KEYS = new Set([
  'type',
  'provider',
  'model',
  'base_url',
  'temperature',
  'max_tokens',
  'max_retries',
  'threads',
  'context_size',
  'gpu',
]);

/** The providers a team uses: the chosen ones, or only `local` for a local-only preset. */
export function teamProviders(preset: TeamPreset, chosen: readonly ProviderChoice[]): ProviderChoice[] {
  if (!preset.localOnly) return [...chosen];
  const local = providerChoices().find((choice) => choice.id === 'local');
  return local ? [local] : [];
}

/**
 * The backend a preset suggests for `provider` in role `roleIndex`: the role's own backend when it is
 * on that provider, else the first preset agent on it, else the provider's plain default.
 */
export function templateBackend(file: PresetFile, provider: ProviderChoice, roleIndex: number): RawBackend {
  const role = file.agents[roleIndex % file.agents.length];
  if (role && providerIdOf(role.backend) === provider.id) return role.backend;
  const other = file.agents.find((agent) => providerIdOf(agent.backend) === provider.id);
  if (other) return other.backend;
  return {
    type: provider.type,
    ...(provider.provider ? { provider: provider.provider } : {}),
    model: provider.defaultModel,
  };
}

/** The default model the wizard offers for `provider` under `file`'s preset. */
export function defaultModelFor(file: PresetFile, provider: ProviderChoice): string {
  return templateBackend(file, provider, 0).model;
}

/**
 * The raw config of the user's team. One agent per provider, each taking the next role of the preset
 * (roles repeat when there are more providers than roles); a single provider gets one agent per role,
 * so a team always has someone to vote with. Agent ids are `<provider>_<role>`.
 */
export function buildTeamConfig(
  file: PresetFile,
  providers: readonly ProviderChoice[],
  models: Readonly<Record<string, string>>,
): Record<string, unknown> {
  if (providers.length === 0) throw new ConfigError('choose at least one provider');
  const count = providers.length === 1 ? file.agents.length : providers.length;
  const ids = new Set<string>();
  const agents = Array.from({ length: count }, (_, index) => {
    const provider = providers[index % providers.length] ?? providers[0]!;
    const role = file.agents[index % file.agents.length]!;
    const template = templateBackend(file, provider, index);
    const model = models[provider.id] ?? template.model;
    const backend =
      model === template.model
        ? { ...template }
        : Object.fromEntries(
            Object.entries({ ...template, model }).filter(([key]) => PORTABLE_KEYS.has(key)),
          );
    let id =
      provider.id === role.id || role.id.startsWith(`${provider.id}_`)
        ? role.id
        : `${provider.id}_${role.id}`;
    for (let n = 2; ids.has(id); n++) id = `${provider.id}_${role.id}_${n}`;
    ids.add(id);
    return { id, backend, ...(role.system_message ? { system_message: role.system_message } : {}) };
  });
  return { agents, ...file.settings };
}
