import { describe, expect, it } from 'vitest';
import { localDefaultConfig } from './local-default-config.js';
import { localModelEnv } from './local-model-env.js';

describe('localModelEnv', () => {
  it('defaults to ~/.cache/massgen/models and the public hub', () => {
    expect(localModelEnv({}, '/home/u')).toEqual({
      modelDir: '/home/u/.cache/massgen/models',
      hubEndpoint: 'https://huggingface.co',
    });
  });

  it('honours MASSGEN_MODEL_DIR, XDG_CACHE_HOME and the hub endpoint variables', () => {
    expect(localModelEnv({ XDG_CACHE_HOME: '/xdg' }, '/home/u').modelDir).toBe('/xdg/massgen/models');
    expect(localModelEnv({ MASSGEN_MODEL_DIR: '/models', XDG_CACHE_HOME: '/xdg' }, '/home/u').modelDir).toBe(
      '/models',
    );
    expect(localModelEnv({ HF_ENDPOINT: 'http://127.0.0.1:9/' }).hubEndpoint).toBe('http://127.0.0.1:9');
    expect(localModelEnv({ HF_ENDPOINT: 'http://a', MASSGEN_HF_ENDPOINT: 'http://b' }).hubEndpoint).toBe(
      'http://b',
    );
  });
});

describe('localDefaultConfig', () => {
  it('is two local agents on one model', () => {
    const config = localDefaultConfig('/models/x.gguf', { threads: 1 });
    expect(config.agents.map((a) => [a.id, a.backend.type, a.backend.model, a.backend.threads])).toEqual([
      ['local_a', 'local', '/models/x.gguf', 1],
      ['local_b', 'local', '/models/x.gguf', 1],
    ]);
  });

  it('keeps ${ in a path literal', () => {
    expect(localDefaultConfig('/odd/${HOME}/m.gguf').agents[0].backend.model).toBe('/odd/${HOME}/m.gguf');
  });
});
