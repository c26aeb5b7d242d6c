import type { BackendFactory } from '../types/backend.js';
import {
  chatCompletionKeyEnvs,
  OPENAI_COMPATIBLE_PRESETS,
  presetListWithAliases,
  selectPreset,
} from './presets.js';

/** How to load one backend's factory: its module is imported only when a run's config uses its type. */
interface BackendEntry {
  load(): Promise<BackendFactory>;
  /**
   * Every environment variable this backend may read its API key from, whatever its settings: what
   * secret scrubbing collects before (and without) the backend's module ever loading. The registry test
   * checks each loaded factory's `apiKeyEnvs` stays within this list.
   */
  keyEnvs: readonly string[];
  /** The endpoint a config without `base_url` talks to, when it is one fixed address. */
  baseUrl?: string;
  /** A coding-agent harness: a program of its own that runs in the agent's workspace. */
  harness?: true;
  /** The model used when the config names none (coding-agent harnesses). */
  defaultModel?: string;
}

const OPENAI = 'https://api.openai.com/v1';
const ANTHROPIC = 'https://api.anthropic.com/v1';
const GOOGLE = 'https://generativelanguage.googleapis.com/v1beta';
const localServers = () => import('./local-servers/local-server-backends.js');

/**
 * Every backend massgen knows, in the order help texts and `--list-backends` show them. Adding a
 * provider is one folder plus one entry here. This module imports no backend: the CLI reads the type
 * list and the key variables from it at start-up, and each run loads only its agents' backends.
 */
export const BACKEND_TABLE: Readonly<Record<string, BackendEntry>> = {
  openai: {
    load: async () => (await import('./openai/index.js')).openAIBackend,
    keyEnvs: ['OPENAI_API_KEY'],
    baseUrl: OPENAI,
  },
  claude: {
    load: async () => (await import('./claude/index.js')).claudeBackend,
    keyEnvs: ['ANTHROPIC_API_KEY'],
    baseUrl: ANTHROPIC,
  },
  gemini: {
    load: async () => (await import('./gemini/index.js')).geminiBackend,
    keyEnvs: ['GOOGLE_API_KEY', 'GEMINI_API_KEY'],
    baseUrl: GOOGLE,
  },
  grok: {
    load: async () => (await import('./grok/index.js')).grokBackend,
    keyEnvs: ['XAI_API_KEY'],
    baseUrl: 'https://api.x.ai/v1',
  },
  azure_openai: {
    load: async () => (await import('./azure-openai/index.js')).azureOpenAIBackend,
    keyEnvs: ['AZURE_OPENAI_API_KEY'],
  },
  chatcompletion: {
    load: async () => (await import('./chatcompletion/index.js')).chatCompletionBackend,
    keyEnvs: [...new Set(OPENAI_COMPATIBLE_PRESETS.map((preset) => preset.apiKeyEnv))],
  },
  vllm: {
    load: async () => (await localServers()).vllmBackend,
    keyEnvs: [],
    baseUrl: 'http://localhost:8000/v1',
  },
  sglang: {
    load: async () => (await localServers()).sglangBackend,
    keyEnvs: [],
    baseUrl: 'http://localhost:30000/v1',
  },
  inference: {
    load: async () => (await import('./local-servers/inference-backend.js')).inferenceBackend,
    keyEnvs: [],
  },
  lmstudio: {
    load: async () => (await localServers()).lmstudioBackend,
    keyEnvs: [],
    baseUrl: 'http://localhost:1234/v1',
  },
  ollama: {
    load: async () => (await localServers()).ollamaBackend,
    keyEnvs: [],
    baseUrl: 'http://localhost:11434/v1',
  },
  local: { load: async () => (await import('./local/index.js')).localBackend, keyEnvs: [] },
  ai_sdk_agent: {
    load: async () => (await import('./external/ai-sdk-agent.js')).aiSdkAgentBackend,
    keyEnvs: [],
  },
  openai_agents: {
    load: async () => (await import('./external/openai-agents.js')).openAIAgentsBackend,
    keyEnvs: [],
  },
  langgraph: { load: async () => (await import('./external/langgraph.js')).langGraphBackend, keyEnvs: [] },
  ag2: { load: async () => (await import('./external/adapter-backend.js')).ag2Backend, keyEnvs: [] },
  external: {
    load: async () => (await import('./external/adapter-backend.js')).externalBackend,
    keyEnvs: [],
  },
  claude_code: {
    load: async () => (await import('./harness/claude-code.js')).claudeCodeBackend,
    keyEnvs: ['ANTHROPIC_API_KEY'],
    baseUrl: ANTHROPIC,
    harness: true,
    defaultModel: 'claude-sonnet-4-5',
  },
  codex: {
    load: async () => (await import('./harness/codex.js')).codexBackend,
    keyEnvs: ['OPENAI_API_KEY'],
    baseUrl: OPENAI,
    harness: true,
    defaultModel: 'gpt-5-codex',
  },
  gemini_cli: {
    load: async () => (await import('./harness/gemini-cli.js')).geminiCliBackend,
    keyEnvs: ['GEMINI_API_KEY'],
    baseUrl: GOOGLE,
    harness: true,
    defaultModel: 'gemini-2.5-pro',
  },
  demo: { load: async () => (await import('./demo/index.js')).demoBackend, keyEnvs: [] },
};

/**
 * The registry type a config `type` names: itself, or `chatcompletion` for the name or alias of one of
 * its presets (MassGen's `type: zai`); undefined for a type no backend has.
 */
export function registryTypeOf(type: string): string | undefined {
  if (Object.hasOwn(BACKEND_TABLE, type)) return type;
  return presetListWithAliases().some((preset) => preset.name === type) ? 'chatcompletion' : undefined;
}

/** All known config `type`s, in registry order (for help texts and "did you mean" suggestions). */
export function backendTypes(): string[] {
  return Object.keys(BACKEND_TABLE);
}

/**
 * Every variable a backend of config `type` may read its key from, known without loading the backend
 * (for a preset name, all of `chatcompletion`'s: `provider:` may name another); empty for an unknown type.
 */
export function keyEnvsOf(type: string): readonly string[] {
  const registryType = registryTypeOf(type);
  return registryType === undefined ? [] : BACKEND_TABLE[registryType]!.keyEnvs;
}

/**
 * What a backend of config `type` with these settings sends and where, known without loading it: the
 * variables it reads its key from and its endpoint when `base_url` is unset (what a project's trust
 * summary shows). Undefined for an unknown type. The registry test checks each factory agrees.
 */
export function backendFacts(
  type: string,
  settings: { baseUrl?: string | undefined; provider?: string | undefined },
):
  | { type: string; keyEnvs: readonly string[]; defaultBaseUrl: string | undefined; harness: boolean }
  | undefined {
  const registryType = registryTypeOf(type);
  if (registryType === undefined) return undefined;
  const entry = BACKEND_TABLE[registryType]!;
  if (registryType !== 'chatcompletion')
    return {
      type: registryType,
      keyEnvs: entry.keyEnvs,
      defaultBaseUrl: entry.baseUrl,
      harness: !!entry.harness,
    };
  const provider = settings.provider ?? (type === registryType ? undefined : type);
  const preset = selectPreset({ ...settings, provider });
  return {
    type: registryType,
    keyEnvs: chatCompletionKeyEnvs({ ...settings, provider }),
    defaultBaseUrl: preset.baseUrl,
    harness: false,
  };
}

/** The model a backend of config `type` uses when the config names none, if it has one. */
export function defaultModelOf(type: string): string | undefined {
  return Object.hasOwn(BACKEND_TABLE, type) ? BACKEND_TABLE[type]!.defaultModel : undefined;
}
