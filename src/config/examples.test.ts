import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../types/errors.js';
import {
  examplesDir,
  isExampleRef,
  leadingComment,
  listExamples,
  readExample,
  resolveExampleRef,
} from './examples.js';

const repoExamples = fileURLToPath(new URL('../../examples', import.meta.url));

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('examplesDir', () => {
  it("is the package's examples/ folder", () => {
    expect(examplesDir()).toBe(repoExamples);
  });
});

describe('listExamples', () => {
  it('lists every bundled file by folder/name, sorted, with its description and absolute path', () => {
    const examples = listExamples();
    const names = examples.map((e) => e.name);
    expect(names).toEqual([...names].sort());
    const three = examples.find((e) => e.name === 'basic/three_agents');
    expect(three).toBeDefined();
    expect(three?.path).toBe(path.join(repoExamples, 'basic', 'three_agents.yaml'));
    expect(three?.description).toMatch(/^Three agents on OpenAI-compatible APIs .* Needs OPENAI_API_KEY\./);
    for (const example of examples) {
      expect(path.isAbsolute(example.path)).toBe(true);
      expect(existsSync(example.path)).toBe(true);
      expect(example.name).not.toMatch(/\.ya?ml$|\\/);
    }
  });
});

describe('leadingComment', () => {
  it('joins the leading comment lines and stops at the first other line', () => {
    expect(leadingComment('\n# One.\n#   Two\n#\nagents: []\n# later\n')).toBe('One. Two');
    expect(leadingComment('agents: []\n')).toBe('');
  });
});

describe('resolveExampleRef', () => {
  const file = path.join(repoExamples, 'basic', 'three_agents.yaml');

  it('accepts @examples/NAME and NAME, with or without .yaml', () => {
    expect(isExampleRef('@examples/basic/three_agents')).toBe(true);
    expect(isExampleRef('basic/three_agents')).toBe(false);
    for (const ref of [
      '@examples/basic/three_agents',
      '@examples/basic/three_agents.yaml',
      'basic/three_agents',
      'basic/three_agents.yaml',
      ' ./basic/three_agents ',
    ]) {
      expect(resolveExampleRef(ref)).toBe(file);
    }
  });

  it('suggests the closest name for a typo, in the form the user wrote', () => {
    const error = errorOf(() => resolveExampleRef('@examples/basic/thre_agents'));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      'unknown example "@examples/basic/thre_agents" — did you mean "@examples/basic/three_agents"?',
    );
    expect((error as ConfigError).hint).toMatch(/--list-examples/);
    expect(errorOf(() => resolveExampleRef('basic/thre_agents')).message).toContain(
      'did you mean "basic/three_agents"?',
    );
  });

  it('suggests the folder for a bare file name', () => {
    expect(errorOf(() => resolveExampleRef('@examples/three_agents')).message).toContain(
      'did you mean "@examples/basic/three_agents"?',
    );
    expect(errorOf(() => resolveExampleRef('@examples/provider/claude')).message).toContain(
      'did you mean "@examples/providers/claude"?',
    );
  });

  it('gives no suggestion for something unrelated', () => {
    const error = errorOf(() => resolveExampleRef('@examples/zzzzzzzzzzzzzzzz'));
    expect(error.message).toBe('unknown example "@examples/zzzzzzzzzzzzzzzz"');
  });

  it('never reaches outside examples/', () => {
    expect(() => resolveExampleRef('@examples/../package.json')).toThrow(ConfigError);
    expect(() => resolveExampleRef('@examples/../README')).toThrow(ConfigError);
    expect(() => resolveExampleRef(`@examples/${file}`)).toThrow(ConfigError);
  });
});

describe('readExample', () => {
  it('returns the file exactly as shipped', () => {
    expect(readExample('@examples/providers/claude')).toBe(
      readFileSync(path.join(repoExamples, 'providers', 'claude.yaml'), 'utf8'),
    );
  });
});
