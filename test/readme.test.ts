import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

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
      const run = spawnSync(process.execPath, [file], { cwd: root, encoding: 'utf8', timeout: 20_000 });
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('a Canberra.');
      expect(run.status).toBe(0);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('names the two set-up commands', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm ci && npm test');
  });
});
