import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../app/validate.js';
import { examplesDir, listExamples } from '../config/examples.js';
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
  it('prints the YAML as shipped (comments and all), so it can be redirected to a file', () => {
    const file = fileURLToPath(new URL('../../examples/basic/three_agents.yaml', import.meta.url));
    const expected = readFileSync(file, 'utf8');
    expect(capture((write) => printExample(write, 'basic/three_agents'))).toBe(expected);
    expect(capture((write) => printExample(write, '@examples/basic/three_agents.yaml'))).toBe(expected);
  });

  it('every example copied with --example validates in the folder it is written to', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'massgen-example-copy-'));
    try {
      const failures: string[] = [];
      for (const example of listExamples()) {
        const file = path.join(dir, `${example.name.replaceAll('/', '_')}.yaml`);
        writeFileSync(
          file,
          capture((write) => printExample(write, example.name)),
        );
        const report = await validateConfig(file, { cwd: dir, env: {} });
        if (!report.valid)
          failures.push(`${example.name}: ${report.errors.map((e) => e.message).join('; ')}`);
      }
      expect(failures).toEqual([]);
      // The custom-tool module of the copy is the shipped one, by absolute path.
      const copy = capture((write) => printExample(write, 'tools/custom_tools'));
      expect(copy).toContain(`path: ${path.join(examplesDir(), 'tools', 'text_tools.ts')}`);
      expect(copy).toMatch(/^# Custom tools:/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('throws a ConfigError with a suggestion for an unknown name', () => {
    expect(() => printExample(() => undefined, 'basic/three_agent')).toThrow(ConfigError);
    expect(() => printExample(() => undefined, 'basic/three_agent')).toThrow(
      /did you mean "basic\/three_agents"/,
    );
  });
});
