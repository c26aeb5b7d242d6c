import { describe, expect, it } from 'vitest';
import { interpolateEnv, interpolateString } from './interpolate-env.js';

describe('interpolateString', () => {
  it('replaces every reference in a string', () => {
    expect(interpolateString('${A}-${B}', { A: '1', B: '2' })).toEqual({ value: '1-2', missing: [] });
  });

  it('reports each unset variable', () => {
    expect(interpolateString('${A} ${B} ${A}', {}).missing).toEqual(['A', 'B', 'A']);
  });

  it('keeps an empty value for ${VAR} but uses the default for ${VAR:-default}', () => {
    expect(interpolateString('[${A}]', { A: '' }).value).toBe('[]');
    expect(interpolateString('[${A:-x}]', { A: '' }).value).toBe('[x]');
    expect(interpolateString('[${A:-}]', {}).value).toBe('[]');
    expect(interpolateString('${URL:-http://localhost:1234/v1}', {}).value).toBe('http://localhost:1234/v1');
  });

  it('unescapes $${VAR} without looking it up', () => {
    expect(interpolateString('$${A} and $${B:-x}', { A: 'no' })).toEqual({
      value: '${A} and ${B:-x}',
      missing: [],
    });
  });

  it('leaves text that is not a variable reference alone', () => {
    expect(interpolateString('cost: $5, ${not a name}, $HOME', {}).value).toBe(
      'cost: $5, ${not a name}, $HOME',
    );
  });
});

describe('interpolateEnv', () => {
  it('walks nested objects and arrays, leaving keys and non-strings untouched', () => {
    const { value, problems } = interpolateEnv(
      { '${K}': ['${A}', 1, true, null, { b: '${A}' }] },
      { A: 'a' },
    );
    expect(value).toEqual({ '${K}': ['a', 1, true, null, { b: 'a' }] });
    expect(problems).toEqual([]);
  });

  it('reports the path of each unset variable', () => {
    const { problems } = interpolateEnv({ agents: [{ backend: { api_key: '${KEY}' } }] }, {});
    expect(problems).toEqual([
      {
        path: ['agents', 0, 'backend', 'api_key'],
        message: 'agents[0].backend.api_key: environment variable KEY is not set',
        hint: 'set KEY in the environment or in .env, or write ${KEY:-default}',
      },
    ]);
  });
});
