import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MassGenConfigSchema } from './schema.js';
import { explainUnknownKey, nodeAt, schemaTree } from './schema-keys.js';

describe('schemaTree', () => {
  const tree = schemaTree(MassGenConfigSchema);

  it('walks through pipes, optionals and defaults into every level', () => {
    const keysAt = (path: (string | number)[]) => {
      const node = nodeAt(tree, path);
      return node?.kind === 'object' ? [...node.fields.keys()] : undefined;
    };
    expect(keysAt([])).toEqual([
      'agents',
      'agent',
      'orchestrator',
      'timeout_settings',
      'ui',
      'pricing',
      'rate_limits',
      'python',
      'adapters',
    ]);
    expect(keysAt(['agents', 0])).toEqual(['id', 'backend', 'system_message']);
    expect(keysAt(['agent', 'backend'])).toContain('provider_options');
    expect(keysAt(['orchestrator'])).toContain('max_steps_per_turn');
  });

  it('treats open bags as leaves', () => {
    expect(nodeAt(tree, ['agents', 0, 'backend', 'provider_options'])).toEqual({ kind: 'leaf' });
    expect(nodeAt(tree, ['agents', 0, 'backend', 'headers'])).toEqual({ kind: 'leaf' });
  });

  it('picks up keys from any zod schema, so new keys need no extra list', () => {
    const schema = z.object({ outer: z.object({ fresh_key: z.string().optional() }).default({}) });
    const custom = schemaTree(schema);
    expect(explainUnknownKey(custom, ['outer'], 'fresh_kye', {}).hint).toBe('did you mean "fresh_key"?');
    expect(explainUnknownKey(custom, [], 'fresh_key', {}).hint).toBe('it belongs under outer');
  });
});

describe('explainUnknownKey', () => {
  const tree = schemaTree(MassGenConfigSchema);

  it('prefers the location under the top-level key the config already uses', () => {
    expect(explainUnknownKey(tree, [], 'model', { agent: {} }).hint).toBe('it belongs under agent.backend');
    expect(explainUnknownKey(tree, [], 'model', { agents: [] }).hint).toBe(
      'it belongs under agents[].backend',
    );
  });

  it('keeps the index the user is at', () => {
    expect(explainUnknownKey(tree, ['agents', 2], 'api_key', {}).hint).toBe(
      'it belongs under agents[2].backend',
    );
  });

  it('suggests a near miss of a key that lives elsewhere', () => {
    expect(explainUnknownKey(tree, ['agents', 0], 'modle', {}).hint).toBe(
      'did you mean "model"? it belongs under agents[0].backend',
    );
  });

  it('lists the valid keys when nothing is close', () => {
    expect(explainUnknownKey(tree, ['timeout_settings'], 'zzz', {})).toEqual({
      message: 'unknown key "zzz" at timeout_settings',
      hint: 'valid keys here: orchestrator_timeout_seconds, agent_turn_timeout_seconds',
    });
  });
});
