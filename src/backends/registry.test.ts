import { describe, expect, it } from 'vitest';
import type { BackendSettings } from '../types/backend.js';
import { BACKEND_TABLE, backendFacts, defaultModelOf, registryTypeOf } from './backend-table.js';
import { isLoopbackUrl } from './is-loopback-url.js';
import { OPENAI_COMPATIBLE_PRESETS } from './presets.js';
import {
  backendFactoryFor,
  backendTypes,
  findBackendFactory,
  loadAllBackendFactories,
  loadedBackendTypes,
} from './registry.js';

const settings = (baseUrl?: string): BackendSettings => ({
  type: 'chatcompletion',
  model: 'm',
  providerOptions: {},
  ...(baseUrl === undefined ? {} : { baseUrl }),
});

describe('backend registry', () => {
  it('loads a backend only when asked, and says so loudly when a caller forgot to', async () => {
    // Nothing in this file has loaded the claude backend yet: a sync lookup must not read as "no such type".
    expect(loadedBackendTypes()).not.toContain('claude');
    expect(() => findBackendFactory('claude')).toThrow(/claude backend was used before it was loaded/);
    expect((await backendFactoryFor('claude'))?.type).toBe('claude');
    expect(findBackendFactory('claude')?.type).toBe('claude');
  });

  it('knows chatcompletion', async () => {
    expect(backendTypes()).toContain('chatcompletion');
    const factory = await backendFactoryFor('chatcompletion');
    expect(factory?.apiKeyEnvs({})).toEqual(['OPENAI_API_KEY']);
    expect(factory?.defaultBaseUrl({})).toBe('https://api.openai.com/v1');
    const backend = factory?.create(settings('http://127.0.0.1:1/v1'));
    expect(backend).toMatchObject({ type: 'chatcompletion', model: 'm' });
  });

  it('returns undefined for unknown types', async () => {
    expect(findBackendFactory('chatcompletions')).toBeUndefined();
    expect(await backendFactoryFor('chatcompletions')).toBeUndefined();
    expect(registryTypeOf('chatcompletions')).toBeUndefined();
    expect(registryTypeOf('groq')).toBe('chatcompletion');
  });

  it('makes the key optional only for loopback base URLs', async () => {
    const keyOptional = (await backendFactoryFor('chatcompletion'))?.keyOptional;
    expect(keyOptional?.(settings('http://localhost:11434/v1'))).toBe(true);
    expect(keyOptional?.(settings())).toBe(false);
    expect(keyOptional?.(settings('https://api.openai.com/v1'))).toBe(false);
  });
});

describe('the backend table says what each factory says, without loading it', () => {
  // Settings that select each preset by name and by host, a loopback server and none at all.
  const variants: Pick<BackendSettings, 'baseUrl' | 'provider'>[] = [
    {},
    { baseUrl: 'http://127.0.0.1:8000/v1' },
    { baseUrl: 'https://example.com/v1' },
    ...OPENAI_COMPATIBLE_PRESETS.flatMap((p) => [
      { provider: p.name },
      { baseUrl: `https://${p.hosts[0]}/v1` },
    ]),
  ];

  it('lists every factory, in registry order, under its own type', async () => {
    const factories = await loadAllBackendFactories();
    expect(factories.map((f) => f.type)).toEqual(Object.keys(BACKEND_TABLE));
  });

  it.each(Object.keys(BACKEND_TABLE))(
    '%s: key variables, endpoint, harness and default model',
    async (type) => {
      const factory = (await backendFactoryFor(type))!;
      for (const variant of variants) {
        const facts = backendFacts(type, variant)!;
        const where = `${type} ${JSON.stringify(variant)}`;
        expect(facts.keyEnvs, where).toEqual(factory.apiKeyEnvs(variant));
        // Secret scrubbing reads the table's list: every variable the factory may read must be in it.
        for (const name of factory.apiKeyEnvs(variant))
          expect(BACKEND_TABLE[type]!.keyEnvs, where).toContain(name);
        if (variant.baseUrl === undefined)
          expect(facts.defaultBaseUrl, where).toBe(factory.defaultBaseUrl(variant));
      }
      expect(backendFacts(type, {})!.harness).toBe(factory.harness === true);
      expect(defaultModelOf(type)).toBe(factory.defaultModel);
    },
  );
});

describe('isLoopbackUrl', () => {
  it.each([
    ['http://localhost:8000/v1', true],
    ['http://127.0.0.1:8080/v1', true],
    ['http://127.1.2.3/v1', true],
    ['http://[::1]:8000/v1', true],
    ['http://[::ffff:127.0.0.1]:8000/v1', true],
    ['http://app.localhost/v1', true],
    ['http://127.0.0.1.example.com/v1', false],
    ['http://10.0.0.5/v1', false],
    ['https://api.openai.com/v1', false],
    ['not a url', false],
    [undefined, false],
  ])('%s -> %s', (url, expected) => {
    expect(isLoopbackUrl(url)).toBe(expected);
  });
});
