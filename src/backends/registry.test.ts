import { describe, expect, it } from 'vitest';
import type { BackendSettings } from '../types/backend.js';
import { isLoopbackUrl } from './is-loopback-url.js';
import { backendTypes, findBackendFactory } from './registry.js';

const settings = (baseUrl?: string): BackendSettings => ({
  type: 'chatcompletion',
  model: 'm',
  providerOptions: {},
  ...(baseUrl === undefined ? {} : { baseUrl }),
});

describe('backend registry', () => {
  it('knows chatcompletion', () => {
    expect(backendTypes()).toContain('chatcompletion');
    const factory = findBackendFactory('chatcompletion');
    expect(factory?.apiKeyEnvs({})).toEqual(['OPENAI_API_KEY']);
    expect(factory?.defaultBaseUrl({})).toBe('https://api.openai.com/v1');
    const backend = factory?.create(settings('http://127.0.0.1:1/v1'));
    expect(backend).toMatchObject({ type: 'chatcompletion', model: 'm' });
  });

  it('returns undefined for unknown types', () => {
    expect(findBackendFactory('chatcompletions')).toBeUndefined();
  });

  it('makes the key optional only for loopback base URLs', () => {
    const keyOptional = findBackendFactory('chatcompletion')?.keyOptional;
    expect(keyOptional?.(settings('http://localhost:11434/v1'))).toBe(true);
    expect(keyOptional?.(settings())).toBe(false);
    expect(keyOptional?.(settings('https://api.openai.com/v1'))).toBe(false);
  });
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
