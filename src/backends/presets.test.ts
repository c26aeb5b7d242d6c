import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PRESET,
  findPreset,
  OPENAI_COMPATIBLE_PRESETS,
  presetForBaseUrl,
  presetListWithAliases,
} from './presets.js';

const table: Array<[name: string, baseUrl: string, apiKeyEnv: string]> = [
  ['openai', 'https://api.openai.com/v1', 'OPENAI_API_KEY'],
  ['cerebras', 'https://api.cerebras.ai/v1', 'CEREBRAS_API_KEY'],
  ['together', 'https://api.together.xyz/v1', 'TOGETHER_API_KEY'],
  ['fireworks', 'https://api.fireworks.ai/inference/v1', 'FIREWORKS_API_KEY'],
  ['groq', 'https://api.groq.com/openai/v1', 'GROQ_API_KEY'],
  ['openrouter', 'https://openrouter.ai/api/v1', 'OPENROUTER_API_KEY'],
  ['nebius', 'https://api.tokenfactory.nebius.com/v1', 'NEBIUS_API_KEY'],
  ['moonshot', 'https://api.moonshot.ai/v1', 'MOONSHOT_API_KEY'],
  ['zai', 'https://api.z.ai/api/paas/v4', 'ZAI_API_KEY'],
  ['qwen', 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1', 'DASHSCOPE_API_KEY'],
  ['poe', 'https://api.poe.com/v1', 'POE_API_KEY'],
  ['deepseek', 'https://api.deepseek.com/v1', 'DEEPSEEK_API_KEY'],
  ['mistral', 'https://api.mistral.ai/v1', 'MISTRAL_API_KEY'],
];

describe('OpenAI-compatible presets', () => {
  it('lists exactly the documented providers, OpenAI first', () => {
    expect(OPENAI_COMPATIBLE_PRESETS.map((p) => p.name)).toEqual(table.map(([name]) => name));
    expect(OPENAI_COMPATIBLE_PRESETS[0]).toBe(DEFAULT_PRESET);
  });

  it.each(table)('%s: base URL %s, key %s, and its own base URL selects it', (name, baseUrl, apiKeyEnv) => {
    const preset = findPreset(name);
    expect(preset).toMatchObject({ name, baseUrl, apiKeyEnv });
    expect(preset?.description).not.toBe('');
    expect(presetForBaseUrl(baseUrl)?.name).toBe(name);
  });

  it.each([
    ['kimi', 'moonshot'],
    ['glm', 'zai'],
    ['KIMI', 'moonshot'],
    [' Groq ', 'groq'],
  ])('findPreset(%j) is %s', (alias, name) => {
    expect(findPreset(alias)?.name).toBe(name);
  });

  it('findPreset is undefined for unknown or missing names', () => {
    expect(findPreset('no-such-provider')).toBeUndefined();
    expect(findPreset(undefined)).toBeUndefined();
    expect(findPreset('')).toBeUndefined();
  });

  it.each([
    ['https://api.groq.com/openai/v1', 'groq'],
    ['https://API.GROQ.COM/openai/v1/', 'groq'],
    ['https://api.together.ai/v1', 'together'],
    ['https://api.studio.nebius.ai/v1', 'nebius'],
    ['https://api.studio.nebius.com/v1', 'nebius'],
    ['https://api.tokenfactory.us-central1.nebius.com/v1', 'nebius'],
    ['https://api.moonshot.cn/v1', 'moonshot'],
    ['https://open.bigmodel.cn/api/paas/v4', 'zai'],
    ['https://api.z.ai/api/coding/paas/v4', 'zai'],
    ['https://dashscope.aliyuncs.com/compatible-mode/v1', 'qwen'],
    ['https://api.deepseek.com', 'deepseek'],
    ['https://api.openai.com/v1', 'openai'],
  ])('presetForBaseUrl(%s) is %s', (url, name) => {
    expect(presetForBaseUrl(url)?.name).toBe(name);
  });

  it.each([
    ['http://localhost:8000/v1'],
    ['http://127.0.0.1:1234/v1'],
    ['https://my-gateway.example.com/v1'],
    // Suffixes match whole labels only.
    ['https://notgroq.com/v1'],
    ['https://groq.com.evil.example/v1'],
    ['https://ecs.aliyuncs.com/v1'],
    ['not a url'],
    [undefined],
  ])('presetForBaseUrl(%s) is undefined', (url) => {
    expect(presetForBaseUrl(url)).toBeUndefined();
  });

  it('the registry list adds one row per alias, with the same base URL and key', () => {
    const list = presetListWithAliases();
    expect(list.map((p) => p.name)).toEqual([...table.map(([name]) => name), 'kimi', 'glm']);
    expect(list.find((p) => p.name === 'kimi')).toMatchObject({
      baseUrl: 'https://api.moonshot.ai/v1',
      apiKeyEnv: 'MOONSHOT_API_KEY',
      description: expect.stringContaining('Alias of moonshot'),
    });
    // Alias rows carry no hosts, so host detection always names the canonical preset.
    expect(list.find((p) => p.name === 'glm')?.hosts).toBeUndefined();
  });

  it('no two presets claim the same host', () => {
    const hosts = OPENAI_COMPATIBLE_PRESETS.flatMap((p) => p.hosts);
    expect(new Set(hosts).size).toBe(hosts.length);
  });
});
