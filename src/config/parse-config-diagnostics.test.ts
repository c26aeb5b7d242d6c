import { describe, expect, it } from 'vitest';
import { backend, diagnosticsOf, messagesOf } from './config.test-support.js';

describe('parseConfig: unknown keys', () => {
  it('suggests the closest key at the same level, at several depths', () => {
    expect(messagesOf({ agnets: [{ backend }] })).toContain(
      'unknown key "agnets" at the top level — did you mean "agents"?',
    );
    expect(messagesOf({ agents: [{ backend, sytem_message: 'x' }] })).toEqual([
      'unknown key "sytem_message" at agents[0] — did you mean "system_message"?',
    ]);
    expect(messagesOf({ agents: [{ backend }, { backend: { ...backend, temprature: 1 } }] })).toEqual([
      'unknown key "temprature" at agents[1].backend — did you mean "temperature"?',
    ]);
    expect(messagesOf({ agent: { backend }, ui: { display: 'simple' } })).toEqual([
      'unknown key "display" at ui — did you mean "display_type"?',
    ]);
  });

  it('reports the full path of the unknown key', () => {
    const [diagnostic] = diagnosticsOf({ agents: [{ backend: { type: 'x', model: 'y', modle: 'z' } }] });
    expect(diagnostic).toEqual({
      path: 'agents[0].backend.modle',
      message: 'unknown key "modle" at agents[0].backend',
      hint: 'did you mean "model"?',
    });
  });

  it('says where a misplaced key belongs', () => {
    expect(messagesOf({ agent: { backend }, max_new_answers_per_agent: 2 })).toEqual([
      'unknown key "max_new_answers_per_agent" at the top level — it belongs under orchestrator',
    ]);
    expect(messagesOf({ agents: [{ backend: { type: 'x' }, model: 'gpt' }] })).toContain(
      'unknown key "model" at agents[0] — it belongs under agents[0].backend',
    );
    expect(messagesOf({ agent: { backend, temperature: 1 } })).toEqual([
      'unknown key "temperature" at agent — it belongs under agent.backend',
    ]);
  });

  it('prefers an exact key elsewhere over a near miss here', () => {
    // `id` is one edit from `ui`, but it is clearly an agent id.
    expect(messagesOf({ agents: [{ backend }], id: 'x' })).toEqual([
      'unknown key "id" at the top level — it belongs under agents[]',
    ]);
  });

  it('notices keys that differ only in case', () => {
    expect(messagesOf({ agent: { backend: { type: 'x', model: 'y', Temperature: 1 } } })).toEqual([
      'unknown key "Temperature" at agent.backend — did you mean "temperature"? (keys are case-sensitive)',
    ]);
  });

  it('reports every unknown key, not just the first', () => {
    expect(diagnosticsOf({ agent: { backend: { ...backend, a: 1, b: 2 } }, c: 3 })).toHaveLength(3);
  });
});

describe('parseConfig: wrong values', () => {
  it('names the path, the expected type and the value received', () => {
    expect(messagesOf({ agents: [{ backend: { ...backend, temperature: 'hot' } }] })).toEqual([
      'agents[0].backend.temperature: expected a number, got a string',
    ]);
    expect(messagesOf({ agent: { backend: { ...backend, max_tokens: 1.5 } } })).toEqual([
      'agent.backend.max_tokens: expected an integer, got a number',
    ]);
    expect(messagesOf({ agent: { backend }, ui: { logging_enabled: 'yes' } })).toEqual([
      'ui.logging_enabled: expected true or false, got a string',
    ]);
  });

  it('does not echo values under secret-looking keys', () => {
    expect(messagesOf({ agent: { backend: { ...backend, api_key: 123456789 } } })).toEqual([
      'agent.backend.api_key: expected a string, got a number',
    ]);
  });

  it('explains null from an empty YAML key', () => {
    expect(messagesOf({ agent: { backend }, orchestrator: null })).toEqual([
      'orchestrator: expected a mapping, got null — an empty "key:" in YAML means null; remove the key or give it a value',
    ]);
  });

  it('reports ranges', () => {
    expect(messagesOf({ agent: { backend: { ...backend, temperature: 3 } } })).toEqual([
      'agent.backend.temperature: must be at most 2',
    ]);
    expect(messagesOf({ agent: { backend }, orchestrator: { max_agent_failures: 0 } })).toEqual([
      'orchestrator.max_agent_failures: must be at least 1',
    ]);
    expect(messagesOf({ agent: { backend }, timeout_settings: { agent_turn_timeout_seconds: 0 } })).toEqual([
      'timeout_settings.agent_turn_timeout_seconds: must be greater than 0',
    ]);
  });

  it('lists the allowed values of an enum and suggests the closest', () => {
    expect(messagesOf({ agent: { backend }, orchestrator: { on_new_answer: 'resart' } })).toEqual([
      'orchestrator.on_new_answer: invalid value; allowed: inject, restart — did you mean "restart"?',
    ]);
    expect(messagesOf({ agent: { backend }, ui: { display_type: 'fancy' } })).toEqual([
      'ui.display_type: invalid value; allowed: rich_terminal, simple, silent',
    ]);
  });

  it('reports missing required keys', () => {
    // `model` is the app's to require (agents from other frameworks bring their own), so it is not here.
    expect(messagesOf({ agents: [{ id: 'a' }] })).toEqual(['missing required key "backend" at agents[0]']);
  });

  it('rejects a base_url that is not an http(s) URL', () => {
    expect(messagesOf({ agent: { backend: { ...backend, base_url: 'localhost:8080' } } })).toEqual([
      'agent.backend.base_url: expected an http:// or https:// URL, got a string',
    ]);
  });

  it('collects problems from every section in one go', () => {
    const diagnostics = diagnosticsOf({
      agents: [{ backend: { type: 'x', model: 'y', max_tokens: 1.5 } }, { id: 'agent_1', backend }],
      orchestrator: { on_new_answer: 'x' },
      ui: { display_type: 'y' },
    });
    expect(diagnostics.map((d) => d.path)).toEqual([
      'agents[0].backend.max_tokens',
      'orchestrator.on_new_answer',
      'ui.display_type',
      'agents[1].id',
    ]);
  });
  it('names the agents when orchestrator.judge is not one of them', () => {
    expect(
      messagesOf({
        agents: [
          { id: 'a', backend },
          { id: 'b', backend },
        ],
        orchestrator: { judge: 'c' },
      }),
    ).toEqual(['orchestrator.judge: judge "c" is not an agent of this config; agents: a, b']);
  });
});
