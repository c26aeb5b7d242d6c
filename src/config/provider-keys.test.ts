import { describe, expect, it } from 'vitest';
import { backend, messagesOf } from './config.test-support.js';
import { parseConfig } from './parse-config.js';

describe('provider features, pricing and rate limits', () => {
  it('accepts the provider feature keys and the top-level pricing and rate_limits maps', () => {
    const config = parseConfig(
      {
        agent: {
          backend: {
            ...backend,
            provider: 'groq',
            enable_web_search: true,
            enable_code_execution: false,
            reasoning: { effort: 'high', summary: 'auto' },
            text: { verbosity: 'low' },
            thinking: { budget_tokens: 2048, include_thoughts: true },
            top_k: 40,
            repetition_penalty: 1.1,
            chat_template_kwargs: { enable_thinking: false },
          },
        },
        orchestrator: { max_cost_usd: 0.25 },
        pricing: { 'my-model': { input_per_million: 1, output_per_million: 2 } },
        rate_limits: { 'gpt-4o-mini': { requests_per_minute: 60, concurrent_requests: 2 } },
      },
      { env: {} },
    );
    expect(config.agents[0].backend.reasoning).toEqual({ effort: 'high', summary: 'auto' });
    expect(config.orchestrator.max_cost_usd).toBe(0.25);
    expect(config.pricing['my-model']).toEqual({ input_per_million: 1, output_per_million: 2 });
    expect(config.rate_limits['gpt-4o-mini']?.concurrent_requests).toBe(2);
  });

  it('reports typos inside those sections with suggestions', () => {
    expect(messagesOf({ agent: { backend: { ...backend, reasoning: { efort: 'low' } } } })).toContain(
      'unknown key "efort" at agent.backend.reasoning — did you mean "effort"?',
    );
    expect(messagesOf({ agent: { backend: { ...backend, enable_websearch: true } } })).toContain(
      'unknown key "enable_websearch" at agent.backend — did you mean "enable_web_search"?',
    );
    expect(
      messagesOf({ agent: { backend }, pricing: { m: { input_per_milion: 1, output_per_million: 1 } } }),
    ).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /unknown key "input_per_milion" at pricing\.m.*did you mean "input_per_million"/,
        ),
      ]),
    );
    expect(messagesOf({ agent: { backend }, orchestrator: { max_cost_usd: -1 } })[0]).toMatch(/max_cost_usd/);
  });
});
