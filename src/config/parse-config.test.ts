import { describe, expect, it } from 'vitest';
import { ConfigError } from '../types/errors.js';
import { backend, COORDINATION_DEFAULTS, diagnosticsOf, messagesOf } from './config.test-support.js';
import { ConfigValidationError } from './diagnostics.js';
import { parseConfig } from './parse-config.js';

const TOOL_DEFAULTS = {
  command_timeout_seconds: 120,
  command_max_file_size_mb: 1024,
  command_max_processes: 512,
  sandbox: { network: false, hidden_paths: [], memory: 2 * 1024 ** 3 },
  docker: { image: 'debian:bookworm-slim', memory: '2g', cpus: 2, network: false, fallback: 'sandbox' },
  mcp_servers: {},
  custom_tools: [],
  exclude_tools: [],
  tool_timeout_seconds: 60,
  max_tool_result_chars: 20_000,
};

describe('parseConfig: valid configs', () => {
  it('accepts the single `agent:` form and normalises it to `agents`', () => {
    const config = parseConfig({ agent: { backend } }, { env: {} });
    expect(config.agents).toHaveLength(1);
    expect(config.agents[0].id).toBe('agent_1');
    expect(config.agents[0].backend).toMatchObject(backend);
    expect(config).not.toHaveProperty('agent');
  });

  it('accepts the `agents:` list form and defaults ids by position', () => {
    const config = parseConfig(
      { agents: [{ id: 'researcher', backend }, { backend }, { backend, system_message: 'Be brief.' }] },
      { env: {} },
    );
    expect(config.agents.map((agent) => agent.id)).toEqual(['researcher', 'agent_2', 'agent_3']);
    expect(config.agents[2]?.system_message).toBe('Be brief.');
  });

  it('fills every default', () => {
    const config = parseConfig({ agent: { backend } }, { env: {} });
    expect(config.agents[0].backend).toEqual({
      ...backend,
      ...TOOL_DEFAULTS,
      max_retries: 3,
      provider_options: {},
    });
    expect(config.orchestrator).toEqual({
      max_new_answers_per_agent: 3,
      answer_novelty_requirement: 'lenient',
      max_enforcement_retries: 2,
      max_agent_failures: 2,
      on_new_answer: 'inject',
      final_presentation: 'present',
      max_steps_per_turn: 30,
      max_cost_usd: null,
      auto_approve: true,
      context_paths: [],
      coordination: COORDINATION_DEFAULTS,
      voting_sensitivity: 'lenient',
      consensus: 'all',
      wrap_up_at: 0.8,
      visibility: 'all',
      visibility_k: 2,
      selection: 'vote',
      paraphrase: false,
      personas: 'none',
      skip_coordination_rounds: false,
    });
    expect(config.pricing).toEqual({});
    expect(config.rate_limits).toEqual({});
    expect(config.timeout_settings).toEqual({
      orchestrator_timeout_seconds: 1800,
      agent_turn_timeout_seconds: 600,
    });
    expect(config.ui).toEqual({ display_type: 'rich_terminal', logging_enabled: true });
  });

  it('keeps given values next to defaults in partially filled sections', () => {
    const config = parseConfig(
      { agent: { backend }, orchestrator: { on_new_answer: 'restart', max_new_answers_per_agent: 2 } },
      { env: {} },
    );
    expect(config.orchestrator.on_new_answer).toBe('restart');
    expect(config.orchestrator.max_new_answers_per_agent).toBe(2);
    // An explicit null is kept (unlimited, warned about at run start), not replaced by the default.
    const unlimited = parseConfig(
      { agent: { backend }, orchestrator: { max_new_answers_per_agent: null } },
      { env: {} },
    );
    expect(unlimited.orchestrator.max_new_answers_per_agent).toBeNull();
    expect(config.orchestrator.max_steps_per_turn).toBe(30);
  });

  it('freezes the result deeply', () => {
    const config = parseConfig(
      { agent: { backend: { ...backend, provider_options: { nested: { deep: [1] } } } } },
      { env: {} },
    );
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.agents)).toBe(true);
    expect(Object.isFrozen(config.agents[0].backend)).toBe(true);
    expect(Object.isFrozen(config.agents[0].backend.provider_options.nested)).toBe(true);
    expect(Object.isFrozen(config.orchestrator)).toBe(true);
    expect(() => {
      (config.orchestrator as { max_steps_per_turn: number }).max_steps_per_turn = 1;
    }).toThrow(TypeError);
  });

  it('does not modify the input', () => {
    const raw = { agent: { backend: { ...backend, api_key: '${KEY}' } } };
    parseConfig(raw, { env: { KEY: 'sk-123' } });
    expect(raw.agent.backend.api_key).toBe('${KEY}');
  });

  it('accepts arbitrary keys in provider_options and headers', () => {
    const config = parseConfig(
      {
        agent: {
          backend: {
            ...backend,
            headers: { 'X-Foo': 'bar' },
            provider_options: { reasoningEffort: 'high', anything: { goes: [1, 2, { here: true }] } },
          },
        },
      },
      { env: {} },
    );
    expect(config.agents[0].backend.provider_options).toEqual({
      reasoningEffort: 'high',
      anything: { goes: [1, 2, { here: true }] },
    });
    expect(config.agents[0].backend.headers).toEqual({ 'X-Foo': 'bar' });
  });

  it('accepts all optional backend keys', () => {
    const config = parseConfig(
      {
        agent: {
          backend: {
            ...backend,
            base_url: 'http://localhost:8080/v1',
            api_key: 'sk-test',
            temperature: 0,
            max_tokens: 1000,
            max_retries: 0,
          },
        },
      },
      { env: {} },
    );
    expect(config.agents[0].backend.temperature).toBe(0);
    expect(config.agents[0].backend.max_retries).toBe(0);
  });
});

describe('parseConfig: agents', () => {
  it('rejects both `agent` and `agents`', () => {
    expect(messagesOf({ agent: { backend }, agents: [{ backend }] })).toEqual([
      'agent: use either "agent:" (one agent) or "agents:" (a list), not both',
    ]);
  });

  it('rejects a config without agents', () => {
    expect(messagesOf({ ui: { display_type: 'simple' } })).toEqual([
      'no agents: add an "agents:" list or a single "agent:"',
    ]);
  });

  it('rejects an empty agents list', () => {
    expect(messagesOf({ agents: [] })).toEqual(['agents: must list at least one agent']);
  });

  it('rejects duplicate ids, naming the id', () => {
    expect(
      messagesOf({
        agents: [
          { id: 'a', backend },
          { id: 'a', backend },
        ],
      }),
    ).toEqual(['agents[1].id: duplicate agent id "a" (also used by agents[0])']);
  });

  it('catches an explicit id that collides with a default one', () => {
    expect(messagesOf({ agents: [{ backend }, { id: 'agent_1', backend }] })).toEqual([
      'agents[1].id: duplicate agent id "agent_1" (also used by agents[0])',
    ]);
  });

  it('rejects ids with invalid characters', () => {
    for (const id of ['has space', '-leading', 'a/b', '']) {
      expect(messagesOf({ agents: [{ id, backend }] })).toEqual([
        'agents[0].id: must start with a letter or digit and contain only letters, digits, "_", "." and "-"',
      ]);
    }
    expect(parseConfig({ agents: [{ id: 'gpt-4o.mini_2', backend }] }, { env: {} }).agents[0].id).toBe(
      'gpt-4o.mini_2',
    );
  });

  it('rejects a top level that is not a mapping', () => {
    expect(messagesOf(['a'])).toEqual([
      'the config must be a mapping with an "agents:" or "agent:" key at the top level, got a list: is this a massgen config file?',
    ]);
    expect(messagesOf(null)).toEqual([
      'the config is empty: it needs an "agents:" list or a single "agent:"',
    ]);
  });
});

describe('parseConfig: environment variables', () => {
  const withKey = (api_key: string) => ({ agent: { backend: { ...backend, api_key } } });

  it('replaces ${VAR} from env', () => {
    const config = parseConfig(withKey('${OPENAI_API_KEY}'), { env: { OPENAI_API_KEY: 'sk-abc' } });
    expect(config.agents[0].backend.api_key).toBe('sk-abc');
  });

  it('replaces references in any string, including inside lists and open bags', () => {
    const config = parseConfig(
      {
        agent: {
          backend: { ...backend, base_url: 'http://${HOST}:8080/v1', provider_options: { tags: ['${TAG}'] } },
          system_message: 'You are ${ROLE:-helpful}.',
        },
      },
      { env: { HOST: 'localhost', TAG: 't1' } },
    );
    expect(config.agents[0].backend.base_url).toBe('http://localhost:8080/v1');
    expect(config.agents[0].backend.provider_options).toEqual({ tags: ['t1'] });
    expect(config.agents[0].system_message).toBe('You are helpful.');
  });

  it('reports an unset variable with its name and path', () => {
    const diagnostics = diagnosticsOf(withKey('${OPENAI_API_KEY}'));
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      path: 'agent.backend.api_key',
      message: 'agent.backend.api_key: environment variable OPENAI_API_KEY is not set',
    });
  });

  it('uses the default when the variable is unset or empty', () => {
    expect(parseConfig(withKey('${KEY:-none}'), { env: {} }).agents[0].backend.api_key).toBe('none');
    expect(parseConfig(withKey('${KEY:-none}'), { env: { KEY: '' } }).agents[0].backend.api_key).toBe('none');
    expect(parseConfig(withKey('${KEY:-none}'), { env: { KEY: 'set' } }).agents[0].backend.api_key).toBe(
      'set',
    );
  });

  it('treats $${VAR} as a literal ${VAR}', () => {
    const config = parseConfig(withKey('$${OPENAI_API_KEY}'), { env: {} });
    expect(config.agents[0].backend.api_key).toBe('${OPENAI_API_KEY}');
  });

  it('does not echo a substituted value in type errors', () => {
    const messages = messagesOf(
      { agent: { backend: { ...backend, base_url: '${SECRET_URL}' } } },
      { SECRET_URL: 'not a url sk-very-secret' },
    );
    expect(messages).toEqual([
      'agent.backend.base_url: expected an http:// or https:// URL, got a string (from ${SECRET_URL})',
    ]);
  });
});

describe('parseConfig: the thrown error', () => {
  it('is a ConfigError with one line for the first problem and every diagnostic attached', () => {
    let caught: unknown;
    try {
      parseConfig(
        { agents: [{ backend: { ...backend, modle: 'x', temperature: 'hot' } }] },
        { env: {}, source: 'config.yaml' },
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect(caught).toBeInstanceOf(ConfigValidationError);
    const error = caught as ConfigValidationError;
    expect(error.code).toBe('config_error');
    expect(error.message).toBe(
      'config.yaml: agents[0].backend.temperature: expected a number, got a string (and 1 more problem)',
    );
    expect(error.message).not.toContain('\n');
    expect(error.path).toBe('agents[0].backend.temperature');
    expect(error.source).toBe('config.yaml');
    expect(error.diagnostics).toHaveLength(2);
  });

  it('describes an unknown key like the docs promise', () => {
    expect(() =>
      parseConfig({ agents: [{ backend: { ...backend, modle: 'x' } }] }, { env: {}, source: 'config.yaml' }),
    ).toThrow('config.yaml: unknown key "modle" at agents[0].backend — did you mean "model"?');
  });
});
