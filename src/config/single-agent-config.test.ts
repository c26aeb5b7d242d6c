import { describe, expect, it } from 'vitest';
import { ConfigValidationError } from './diagnostics.js';
import { singleAgentConfig } from './single-agent-config.js';

describe('singleAgentConfig', () => {
  it('builds a one-agent config with defaults filled in', () => {
    const config = singleAgentConfig({ backendType: 'chatcompletion', model: 'gpt-4o-mini' });
    expect(config.agents).toHaveLength(1);
    expect(config.agents[0]).toEqual({
      id: 'agent_1',
      backend: expect.objectContaining({
        type: 'chatcompletion',
        model: 'gpt-4o-mini',
        max_retries: 3,
        provider_options: {},
      }),
    });
    expect(config.orchestrator.max_steps_per_turn).toBe(30);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('passes the optional flags through literally', () => {
    const config = singleAgentConfig({
      backendType: 'chatcompletion',
      model: 'm',
      baseUrl: 'http://localhost:1234/v1',
      systemMessage: 'Reply with ${THIS} exactly.',
      apiKey: 'sk-$${x}',
    });
    expect(config.agents[0].backend.base_url).toBe('http://localhost:1234/v1');
    expect(config.agents[0].backend.api_key).toBe('sk-$${x}');
    expect(config.agents[0].system_message).toBe('Reply with ${THIS} exactly.');
  });

  it('rejects invalid values like a file config would', () => {
    expect(() => singleAgentConfig({ backendType: 'x', model: 'm', baseUrl: 'nope' })).toThrow(
      ConfigValidationError,
    );
    expect(() => singleAgentConfig({ backendType: 'x', model: '' })).toThrow(
      /agent\.backend\.model: must not be empty/,
    );
  });
});
