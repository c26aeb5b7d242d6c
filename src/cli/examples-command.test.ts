import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../types/errors.js';
import { printExample, printExampleList } from './examples-command.js';

function capture(fn: (write: (text: string) => void) => void): string {
  let out = '';
  fn((text) => (out += text));
  return out;
}

describe('printExampleList', () => {
  it('groups the bundled examples by folder, each with its description', () => {
    const out = capture((write) => printExampleList(write));
    expect(out).toMatch(/^Bundled example configs/);
    for (const folder of ['basic/', 'local/', 'presets/', 'providers/', 'teams/']) {
      expect(out).toContain(`\n${folder}\n`);
    }
    expect(out).toContain('\n  basic/three_agents\n      Three agents on OpenAI-compatible APIs');
    // Each group is listed once, in order.
    expect(out.indexOf('\nbasic/\n')).toBeLessThan(out.indexOf('\nproviders/\n'));
    expect(out.match(/\nproviders\/\n/g)).toHaveLength(1);
    expect(out).toContain('massgen --example basic/three_agents > team.yaml');
  });

  it('wraps long descriptions and handles top-level files and missing descriptions', () => {
    const out = capture((write) =>
      printExampleList(write, [
        { name: 'solo', description: '', path: '/x/solo.yaml' },
        { name: 'a/b', description: 'word '.repeat(40).trim(), path: '/x/a/b.yaml' },
      ]),
    );
    expect(out).toContain('\n(top level)\n  solo\n      (no description)\n');
    for (const line of out.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
  });
});

describe('printExample', () => {
  it('prints the YAML exactly as shipped, so it can be redirected to a file', () => {
    const file = fileURLToPath(new URL('../../examples/basic/three_agents.yaml', import.meta.url));
    const expected = readFileSync(file, 'utf8');
    expect(capture((write) => printExample(write, 'basic/three_agents'))).toBe(expected);
    expect(capture((write) => printExample(write, '@examples/basic/three_agents.yaml'))).toBe(expected);
  });

  it('throws a ConfigError with a suggestion for an unknown name', () => {
    expect(() => printExample(() => undefined, 'basic/three_agent')).toThrow(ConfigError);
    expect(() => printExample(() => undefined, 'basic/three_agent')).toThrow(
      /did you mean "basic\/three_agents"/,
    );
  });
});
