import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../types/errors.js';
import { ConfigValidationError, formatDiagnostics } from './diagnostics.js';
import { loadConfigFile, validateConfigFile } from './load-config-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'massgen-config-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const write = (name: string, text: string): string => {
  writeFileSync(join(dir, name), text);
  return name;
};

function errorOf(fn: () => unknown): ConfigValidationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigValidationError) return error;
    throw error;
  }
  throw new Error('expected a ConfigValidationError');
}

const MINIMAL = `agent:
  backend:
    type: chatcompletion
    model: gpt-4o-mini
`;

describe('loadConfigFile', () => {
  it('loads a YAML file relative to cwd', () => {
    write('config.yaml', MINIMAL);
    const config = loadConfigFile('config.yaml', { env: {}, cwd: dir });
    expect(config.agents[0].backend.model).toBe('gpt-4o-mini');
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('loads an absolute path regardless of cwd', () => {
    write('config.yml', MINIMAL);
    expect(loadConfigFile(join(dir, 'config.yml'), { env: {}, cwd: '/' }).agents).toHaveLength(1);
  });

  it('loads JSON, tabs included', () => {
    write('config.json', '{\n\t"agents": [{"id": "a", "backend": {"type": "x", "model": "y"}}]\n}\n');
    expect(loadConfigFile('config.json', { env: {}, cwd: dir }).agents[0].id).toBe('a');
  });

  it('supports YAML anchors and merge keys for shared settings', () => {
    write(
      'config.yaml',
      [
        'agents:',
        '  - backend: &local',
        '      type: chatcompletion',
        '      model: a',
        '      base_url: http://localhost:1234/v1',
        '  - backend:',
        '      <<: *local',
        '      model: b',
        '',
      ].join('\n'),
    );
    const config = loadConfigFile('config.yaml', { env: {}, cwd: dir });
    expect(config.agents[1]?.backend).toMatchObject({
      type: 'chatcompletion',
      model: 'b',
      base_url: 'http://localhost:1234/v1',
    });
  });

  it('resolves ${VAR} from the given env', () => {
    write('config.yaml', MINIMAL.replace('gpt-4o-mini', '${MODEL}'));
    expect(loadConfigFile('config.yaml', { env: { MODEL: 'm1' }, cwd: dir }).agents[0].backend.model).toBe(
      'm1',
    );
  });

  it('reports a missing file', () => {
    const error = errorOf(() => loadConfigFile('nope.yaml', { env: {}, cwd: dir }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(`config file not found: ${join(dir, 'nope.yaml')}`);
  });

  it('reports a directory given as the config', () => {
    expect(() => loadConfigFile('.', { env: {}, cwd: dir })).toThrow(/is a directory/);
  });

  it('reports an empty file', () => {
    write('empty.yaml', '# nothing here yet\n');
    expect(() => loadConfigFile('empty.yaml', { env: {}, cwd: dir })).toThrow(
      'empty.yaml: the config file is empty: it needs an "agents:" list or a single "agent:"',
    );
  });

  it('reports a file that is not a mapping', () => {
    write('list.yaml', '- a\n- b\n');
    expect(() => loadConfigFile('list.yaml', { env: {}, cwd: dir })).toThrow(
      'list.yaml: the config must be a mapping with an "agents:" or "agent:" key at the top level, got a list',
    );
  });

  it('reports YAML syntax errors with line and column', () => {
    write('bad.yaml', 'agent:\n  backend:\n    type: x\n   model: y\n');
    const error = errorOf(() => loadConfigFile('bad.yaml', { env: {}, cwd: dir }));
    const [first] = error.diagnostics;
    expect(first?.line).toBe(4);
    expect(first?.column).toBeGreaterThan(0);
    expect(first?.message).toMatch(/^YAML syntax error: /);
    expect(error.message).toMatch(/^bad\.yaml:4:\d+: YAML syntax error: /);
    expect(error.message).not.toContain('\n');
  });

  it('reports duplicate keys as syntax errors', () => {
    write('dup.yaml', `${MINIMAL}agent:\n  backend: {type: x, model: y}\n`);
    expect(() => loadConfigFile('dup.yaml', { env: {}, cwd: dir })).toThrow(
      /^dup\.yaml:5:1: YAML syntax error: .*unique/,
    );
  });

  it('places schema problems at their line and column, in file order', () => {
    write(
      'config.yaml',
      `agents:
  - id: a
    backend:
      type: chatcompletion
      modle: gpt-4o-mini
      temperature: hot
orchestrator:
  on_new_answer: resart
`,
    );
    const error = errorOf(() => loadConfigFile('config.yaml', { env: {}, cwd: dir }));
    // The typo's "did you mean" replaces the echo "missing required key model".
    expect(error.diagnostics).toEqual([
      {
        path: 'agents[0].backend.modle',
        message: 'unknown key "modle" at agents[0].backend',
        hint: 'did you mean "model"?',
        line: 5,
        column: 7,
      },
      {
        path: 'agents[0].backend.temperature',
        message: 'agents[0].backend.temperature: expected a number, got a string',
        line: 6,
        column: 20,
      },
      {
        path: 'orchestrator.on_new_answer',
        message: 'orchestrator.on_new_answer: invalid value; allowed: inject, restart',
        hint: 'did you mean "restart"?',
        line: 8,
        column: 18,
      },
    ]);
    expect(error.message).toBe(
      'config.yaml:5:7: unknown key "modle" at agents[0].backend — did you mean "model"? (and 2 more problems)',
    );
  });

  it('points at an unset variable', () => {
    write('config.yaml', `${MINIMAL}    api_key: \${OPENAI_API_KEY}\n`);
    expect(() => loadConfigFile('config.yaml', { env: {}, cwd: dir })).toThrow(
      'config.yaml:5:14: agent.backend.api_key: environment variable OPENAI_API_KEY is not set',
    );
  });
});

describe('loadConfigFile, the same file read again (as massgen serve does per request)', () => {
  it('gives the config it made before when nothing it was made from changed', () => {
    write('config.yaml', MINIMAL.replace('gpt-4o-mini', '${MODEL}'));
    const env = { MODEL: 'm1' };
    const first = loadConfigFile('config.yaml', { env, cwd: dir });
    expect(loadConfigFile('config.yaml', { env: { ...env }, cwd: dir })).toBe(first);
  });

  it('reads an edited file anew: a stale config is never served', () => {
    write('config.yaml', MINIMAL);
    expect(loadConfigFile('config.yaml', { env: {}, cwd: dir }).agents[0].backend.model).toBe('gpt-4o-mini');
    write('config.yaml', MINIMAL.replace('gpt-4o-mini', 'gpt-4o'));
    expect(loadConfigFile('config.yaml', { env: {}, cwd: dir }).agents[0].backend.model).toBe('gpt-4o');
    write('config.yaml', `${MINIMAL}    modle: x\n`);
    expect(() => loadConfigFile('config.yaml', { env: {}, cwd: dir })).toThrow(ConfigValidationError);
  });

  it('resolves ${VAR} again when a variable the file names changed, and not for others', () => {
    write('config.yaml', MINIMAL.replace('gpt-4o-mini', '${MODEL:-fallback}'));
    const first = loadConfigFile('config.yaml', { env: { MODEL: 'm1' }, cwd: dir });
    expect(loadConfigFile('config.yaml', { env: { MODEL: 'm1', OTHER: 'x' }, cwd: dir })).toBe(first);
    expect(loadConfigFile('config.yaml', { env: { MODEL: 'm2' }, cwd: dir }).agents[0].backend.model).toBe(
      'm2',
    );
    expect(loadConfigFile('config.yaml', { env: {}, cwd: dir }).agents[0].backend.model).toBe('fallback');
  });

  it('does not take a config made for another working folder', () => {
    write('config.yaml', MINIMAL);
    const first = loadConfigFile(join(dir, 'config.yaml'), { env: {}, cwd: dir });
    expect(loadConfigFile(join(dir, 'config.yaml'), { env: {}, cwd: '/' })).not.toBe(first);
  });
});

describe('validateConfigFile', () => {
  it('returns the config when valid', () => {
    write('config.yaml', MINIMAL);
    const result = validateConfigFile('config.yaml', { env: {}, cwd: dir });
    expect(result.valid).toBe(true);
    expect(result.diagnostics).toEqual([]);
    expect(result.config?.agents[0].id).toBe('agent_1');
  });

  it('returns diagnostics instead of throwing', () => {
    write('config.yaml', `${MINIMAL}    modle: x\nui: {display_type: fancy}\n`);
    const result = validateConfigFile('config.yaml', { env: {}, cwd: dir });
    expect(result.valid).toBe(false);
    expect(result.config).toBeUndefined();
    expect(formatDiagnostics(result.diagnostics, 'config.yaml')).toBe(
      [
        'config.yaml:5:5: unknown key "modle" at agent.backend — did you mean "model"?',
        'config.yaml:6:20: ui.display_type: invalid value; allowed: rich_terminal, simple, silent',
      ].join('\n'),
    );
  });

  it('returns diagnostics for missing files and syntax errors too', () => {
    expect(validateConfigFile('nope.yaml', { env: {}, cwd: dir })).toEqual({
      valid: false,
      diagnostics: [{ path: '', message: `config file not found: ${join(dir, 'nope.yaml')}` }],
      warnings: [],
    });
    write('bad.yaml', 'agent: [\n');
    const result = validateConfigFile('bad.yaml', { env: {}, cwd: dir });
    expect(result.valid).toBe(false);
    expect(result.diagnostics[0]?.line).toBeDefined();
  });
});
