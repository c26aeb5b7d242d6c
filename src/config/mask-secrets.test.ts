import { describe, expect, it } from 'vitest';
import { maskSecrets } from './mask-secrets.js';

describe('maskSecrets', () => {
  it('masks string values under secret-looking keys, at any depth', () => {
    const masked = maskSecrets({
      agents: [
        {
          backend: {
            api_key: 'sk-123',
            apiKey: 'sk-456',
            'api-key': 'sk-789',
            headers: { Authorization: 'Bearer abc', 'X-Trace': 'on' },
            provider_options: { access_token: 'tok', client_secret: 's', password: 'p' },
            model: 'gpt-4o-mini',
          },
        },
      ],
    });
    expect(masked).toEqual({
      agents: [
        {
          backend: {
            api_key: '***',
            apiKey: '***',
            'api-key': '***',
            headers: { Authorization: '***', 'X-Trace': 'on' },
            provider_options: { access_token: '***', client_secret: '***', password: '***' },
            model: 'gpt-4o-mini',
          },
        },
      ],
    });
  });

  it('keeps empty and missing secrets visible, and non-string values as they are', () => {
    expect(maskSecrets({ api_key: '', token: undefined, max_tokens: 1000, tokens: ['a'] })).toEqual({
      api_key: '',
      token: undefined,
      max_tokens: 1000,
      tokens: ['***'],
    });
  });

  it('masks known secret values wherever they appear', () => {
    const masked = maskSecrets(
      {
        base_url: 'https://x.test/?key=sk-abcdef',
        note: 'uses sk-abcdef and sk-abcdefghij',
        short: 'abc abc',
      },
      ['sk-abcdef', 'sk-abcdefghij', 'abc'],
    );
    expect(masked).toEqual({
      base_url: 'https://x.test/?key=***',
      note: 'uses *** and ***',
      // Values shorter than 6 characters are ignored: they would mask ordinary words.
      short: 'abc abc',
    });
  });

  it('returns a deep copy and leaves the input alone', () => {
    const input = { a: { api_key: 'secret' }, list: [{ b: 1 }] };
    const masked = maskSecrets(input) as typeof input;
    expect(input.a.api_key).toBe('secret');
    expect(masked.list).not.toBe(input.list);
    expect(masked.list[0]).not.toBe(input.list[0]);
  });

  it('handles frozen input, primitives and cycles', () => {
    expect(maskSecrets(Object.freeze({ token: 'x' }))).toEqual({ token: '***' });
    expect(maskSecrets('plain')).toBe('plain');
    expect(maskSecrets(null)).toBeNull();
    const cyclic: Record<string, unknown> = { secret: 'x' };
    cyclic.self = cyclic;
    const masked = maskSecrets(cyclic) as Record<string, unknown>;
    expect(masked.secret).toBe('***');
    expect(masked.self).toBe(masked);
  });
});
