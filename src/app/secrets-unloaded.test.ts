/**
 * A run's secrets are collected before its backends load, and a library caller may collect them with
 * none loaded at all: no backend's key may then be missed. This file never loads a backend module.
 */
import { describe, expect, it } from 'vitest';
import { BACKEND_TABLE } from '../backends/backend-table.js';
import { loadedBackendTypes } from '../backends/registry.js';
import { OPENAI_COMPATIBLE_PRESETS } from '../backends/presets.js';
import { parseConfig } from '../config/index.js';
import { secretValues } from './backend-settings.js';

const withKey = Object.entries(BACKEND_TABLE).flatMap(([type, entry]) =>
  entry.keyEnvs.map((name) => [type, name] as const),
);
const presets = OPENAI_COMPATIBLE_PRESETS.map((preset) => [preset.name, preset.apiKeyEnv] as const);

describe('secret values of backends whose modules never loaded', () => {
  it.each([...withKey, ...presets])('type %s: the key in %s is scrubbed', (type, name) => {
    const config = parseConfig({ agents: [{ id: 'a', backend: { type, model: 'm' } }] }, { env: {} });
    const key = `secret-of-${type}-${name}`;
    expect(secretValues(config, { [name]: key })).toContain(key);
    expect(loadedBackendTypes()).toEqual([]);
  });

  it('covers every backend type that reads a key', () => {
    expect(new Set(withKey.map(([type]) => type))).toEqual(
      new Set([
        'openai',
        'claude',
        'gemini',
        'grok',
        'azure_openai',
        'chatcompletion',
        'claude_code',
        'codex',
        'gemini_cli',
      ]),
    );
  });

  it("scrubs the config's own api_key too", () => {
    const config = parseConfig(
      { agents: [{ id: 'a', backend: { type: 'claude', model: 'm', api_key: 'inline-key' } }] },
      { env: {} },
    );
    expect(secretValues(config, {})).toContain('inline-key');
  });
});
