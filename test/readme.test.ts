import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../src/app/validate.js';
import { CLI_TIMEOUT_MS } from './e2e/cli-harness.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

describe('README', () => {
  it('the massgen/testing example runs as written against the built package', () => {
    const block = /```js\n(import \{ Orchestrator \} from 'massgen';[\s\S]*?)```/.exec(readme)?.[1];
    expect(block, 'README has the massgen/testing example').toBeDefined();
    // Inside the package folder, so `massgen` resolves to this package (self-reference via "exports").
    const file = path.join(root, `.readme-example-${process.pid}.mjs`);
    writeFileSync(file, block as string);
    try {
      // A bound for a hung example only, far above what it takes on a busy machine.
      const run = spawnSync(process.execPath, [file], {
        cwd: root,
        encoding: 'utf8',
        timeout: CLI_TIMEOUT_MS,
      });
      expect(run.error, 'the example ran to its end').toBeUndefined();
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('a Canberra.');
      expect(run.status).toBe(0);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('the first config validates', async () => {
    const yaml = /```yaml\n(# team\.yaml[\s\S]*?)```/.exec(readme)?.[1];
    expect(yaml, 'README has the team.yaml example').toBeDefined();
    const dir = mkdtempSync(path.join(tmpdir(), 'massgen-readme-'));
    try {
      writeFileSync(path.join(dir, 'team.yaml'), yaml as string);
      const report = await validateConfig('team.yaml', {
        cwd: dir,
        env: { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', GROQ_API_KEY: 'k' },
      });
      expect(report.errors).toEqual([]);
      expect(report.warnings).toEqual([]);
      expect(report.agents.map((a) => a.backend)).toEqual(['openai', 'claude', 'chatcompletion']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the tools config validates next to the example tool module', async () => {
    const yaml = /```yaml\n(# tools\.yaml[\s\S]*?)```/.exec(readme)?.[1];
    expect(yaml, 'README has the tools.yaml example').toBeDefined();
    const dir = mkdtempSync(path.join(tmpdir(), 'massgen-readme-'));
    try {
      writeFileSync(path.join(dir, 'tools.yaml'), yaml as string);
      copyFileSync(path.join(root, 'examples', 'tools', 'text_tools.ts'), path.join(dir, 'text_tools.ts'));
      const report = await validateConfig('tools.yaml', {
        cwd: dir,
        env: { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', PATH: process.env.PATH },
      });
      expect(report.errors).toEqual([]);
      expect(report.warnings).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the two set-up commands', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm ci && npm test');
  });

  it('promises nothing that has shipped: no "until X lands" or "coming with" in the docs or the source', () => {
    // Phrases that announce a feature as still to come; each one found here was stale (the live view,
    // the interactive session and the Python agents all exist).
    const stale = [
      /until the [\w -]+ lands/i,
      /coming with the [\w -]+/i,
      /arrives with the [\w -]+ issue/i,
      /not implemented yet/i,
      /written in Python will too/i,
      /plain text for now/i,
    ];
    const files = [
      'README.md',
      ...readdirSync(path.join(root, 'docs'), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.md'))
        .map((f) => path.join('docs', f)),
      ...readdirSync(path.join(root, 'src'), { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.tsx?$/.test(f) && !/\.test(-support)?\.tsx?$/.test(f))
        .map((f) => path.join('src', f)),
    ];
    const found = files.flatMap((file) =>
      readFileSync(path.join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          stale.some((pattern) => pattern.test(line)) ? [`${file}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(found).toEqual([]);
  });
});
