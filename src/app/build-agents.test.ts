import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/index.js';
import { buildAgentSpecs, priceFor, resolveBackendSettings } from './build-agents.js';
import { loadAllBackendFactories } from '../backends/registry.js';

// buildAgentSpecs reads the factories the run loaded first (prepareRun loads the config's backends).
await loadAllBackendFactories();

const config = (backend: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  parseConfig({ agent: { id: 'a', backend }, ...extra }, { env: {} });

const errorOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    return (
      (error as Error).message +
      ((error as { hint?: string }).hint ? ` | ${(error as { hint: string }).hint}` : '')
    );
  }
  throw new Error('expected an error');
};

describe('resolveBackendSettings', () => {
  it('maps feature keys to the backend contract', () => {
    const [settings] = resolveBackendSettings(
      config({
        type: 'openai',
        model: 'gpt-5',
        enable_web_search: true,
        enable_code_interpreter: true,
        reasoning: { effort: 'high', summary: 'auto' },
        text: { verbosity: 'low' },
      }),
      { OPENAI_API_KEY: 'sk-test' },
    );
    expect(settings).toMatchObject({
      type: 'openai',
      apiKey: 'sk-test',
      baseUrl: 'https://api.openai.com/v1',
      features: {
        webSearch: true,
        codeExecution: true,
        reasoning: { effort: 'high', summary: 'auto' },
        textVerbosity: 'low',
      },
    });
  });

  it('names the key variable and the backend when the key is missing', () => {
    expect(
      errorOf(() => resolveBackendSettings(config({ type: 'claude', model: 'claude-sonnet-4-5' }), {})),
    ).toContain(
      'agents[0] (a): the claude backend needs an API key — set the ANTHROPIC_API_KEY environment variable',
    );
    expect(
      errorOf(() => resolveBackendSettings(config({ type: 'gemini', model: 'gemini-2.5-flash' }), {})),
    ).toContain('set the GOOGLE_API_KEY or GEMINI_API_KEY environment variable');
  });

  it('takes the first key variable that is set', () => {
    const [settings] = resolveBackendSettings(config({ type: 'gemini', model: 'gemini-2.5-flash' }), {
      GEMINI_API_KEY: 'g-key',
    });
    expect(settings?.apiKey).toBe('g-key');
  });

  it('refuses a feature the backend does not support, naming the backend and who supports it', () => {
    expect(
      errorOf(() =>
        resolveBackendSettings(config({ type: 'chatcompletion', model: 'm', enable_web_search: true }), {}),
      ),
    ).toMatch(
      /the chatcompletion backend does not support enable_web_search \| massgen --list-backends shows which backends support it/,
    );
    expect(
      errorOf(() =>
        resolveBackendSettings(config({ type: 'claude', model: 'claude-sonnet-4', top_k: 5 }), {
          ANTHROPIC_API_KEY: 'k',
        }),
      ),
    ).toMatch(/the claude backend does not accept top_k/);
  });

  it('accepts Gemini 2 built-in tools (coordination then goes through the text)', () => {
    const [settings] = resolveBackendSettings(
      config({ type: 'gemini', model: 'gemini-2.5-flash', enable_web_search: true }),
      { GOOGLE_API_KEY: 'k' },
    );
    expect(settings?.features).toMatchObject({ webSearch: true });
  });

  it('requires a model, except for agents from other frameworks, which need a module instead', () => {
    expect(
      errorOf(() =>
        resolveBackendSettings(config({ type: 'openai', model: undefined }), { OPENAI_API_KEY: 'k' }),
      ),
    ).toMatch(/missing required key "model" at agents\[0\]\.backend/);
    expect(
      errorOf(() => resolveBackendSettings(config({ type: 'ai_sdk_agent', model: undefined }), {})),
    ).toMatch(/the ai_sdk_agent backend needs module:/);
    expect(
      errorOf(() =>
        resolveBackendSettings(config({ type: 'openai', model: 'gpt-4o', module: './a.ts' }), {
          OPENAI_API_KEY: 'k',
        }),
      ),
    ).toMatch(/module and export are for agents from other frameworks/);
  });

  it('checks provider presets with a suggestion', () => {
    expect(
      errorOf(() =>
        resolveBackendSettings(config({ type: 'chatcompletion', model: 'm', provider: 'grok' }), {}),
      ),
    ).toMatch(/unknown provider "grok" for the chatcompletion backend — did you mean "groq"\?/);
  });

  it('requires base_url for azure_openai', () => {
    expect(
      errorOf(() =>
        resolveBackendSettings(config({ type: 'azure_openai', model: 'my-deployment' }), {
          AZURE_OPENAI_API_KEY: 'k',
        }),
      ),
    ).toMatch(/azure_openai backend needs base_url/);
  });
});

describe('prices and rate limits', () => {
  it('uses the config pricing, then free for local servers, then the built-in table', () => {
    const custom = config(
      { type: 'openai', model: 'gpt-4o' },
      { pricing: { 'gpt-4o': { input_per_million: 9, output_per_million: 9 } } },
    );
    const [s1] = resolveBackendSettings(custom, { OPENAI_API_KEY: 'k' });
    expect(priceFor(custom, s1!)).toEqual({ inputPerMillion: 9, outputPerMillion: 9 });
    const builtIn = config({ type: 'openai', model: 'gpt-4o-mini' });
    const [s2] = resolveBackendSettings(builtIn, { OPENAI_API_KEY: 'k' });
    expect(priceFor(builtIn, s2!)).toMatchObject({ inputPerMillion: 0.15, outputPerMillion: 0.6 });
    const unknown = config({
      type: 'chatcompletion',
      model: 'some-model',
      base_url: 'http://127.0.0.1:9/v1',
    });
    const [s3] = resolveBackendSettings(unknown, {});
    expect(priceFor(unknown, s3!)).toBeUndefined();
  });

  it('wraps agents on a rate-limited model, sharing one limiter per model', () => {
    const cfg = parseConfig(
      {
        agents: [
          { id: 'a', backend: { type: 'chatcompletion', model: 'm', base_url: 'http://127.0.0.1:9/v1' } },
          { id: 'b', backend: { type: 'chatcompletion', model: 'm', base_url: 'http://127.0.0.1:9/v1' } },
        ],
        rate_limits: { m: { concurrent_requests: 1 } },
      },
      { env: {} },
    );
    const specs = buildAgentSpecs(cfg, {});
    expect(specs.map((s) => s.backend.model)).toEqual(['m', 'm']);
    expect(specs.every((s) => s.price === undefined)).toBe(true);
  });
});
