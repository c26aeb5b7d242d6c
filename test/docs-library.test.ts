import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every TypeScript example in docs/library.md runs as written against the built package (the files sit
 * in the package folder, so `massgen/…` resolves to this package through "exports"), and prints what
 * its `// → …` comments say.
 */
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const page = readFileSync(path.join(root, 'docs', 'library.md'), 'utf8');
const blocks = [...page.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
const tsx = pathToFileURL(path.join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

describe('docs/library.md', () => {
  it('has examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(8);
  });

  it.each(blocks.map((code, i) => [`${i + 1}: ${/^import .*$/m.exec(code)?.[0] ?? ''}`, code] as const))(
    'example %s runs and prints what it says',
    (_name, code) => {
      const file = path.join(root, `.docs-example-${process.pid}-${Math.random().toString(36).slice(2)}.ts`);
      const cwd = mkdtempSync(path.join(tmpdir(), 'massgen-docs-'));
      writeFileSync(file, code);
      try {
        const run = spawnSync(process.execPath, ['--import', tsx, file], {
          cwd,
          encoding: 'utf8',
          timeout: 60_000,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd },
        });
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0);
        const expected = [...code.matchAll(/\/\/ → (.*)$/gm)].map((m) => m[1] as string);
        const lines = run.stdout.split('\n');
        for (const line of expected) expect(lines, `prints "${line}"`).toContain(line);
      } finally {
        rmSync(file, { force: true });
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  );
});
