/**
 * docs/eval.md stays true: its session runs as written (the scripted model on a free port instead of
 * 8123, `massgen` being this package's built CLI) and prints the table the page shows, its dataset
 * example parses, and every option its table names is one `massgen eval` takes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readDataset } from '../src/eval/index.js';
import { freePort, waitFor } from './e2e/cli-harness.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const page = readFileSync(path.join(root, 'docs', 'eval.md'), 'utf8');
const blocks = (lang: string) =>
  [...page.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1] as string);

describe('docs/eval.md', () => {
  it('the session runs as written and prints the table shown', async () => {
    const [model] = blocks('js');
    const session = blocks('bash')[1] as string;
    const shown = blocks('text').find((b) => b.startsWith('Eval:')) as string;
    expect(session).toContain('massgen eval --config team.yaml');
    const cwd = mkdtempSync(path.join(tmpdir(), 'massgen-docs-eval-'));
    const bin = path.join(cwd, 'bin');
    mkdirSync(bin);
    mkdirSync(path.join(cwd, 'node_modules'));
    writeFileSync(
      path.join(bin, 'massgen'),
      `#!/bin/sh\nexec "${process.execPath}" "${path.join(root, 'bin', 'massgen.js')}" "$@"\n`,
    );
    chmodSync(path.join(bin, 'massgen'), 0o755);
    symlinkSync(root, path.join(cwd, 'node_modules', 'massgen'), 'dir');
    const port = String(await freePort());
    writeFileSync(path.join(cwd, 'fake-model.mjs'), (model as string).replaceAll('8123', port));
    const env = { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: cwd };
    const fake = spawn(process.execPath, ['fake-model.mjs'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    fake.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitFor(() => out.includes('scripted model on'), 30_000, 'the scripted model');
      const run = spawnSync('bash', ['-e', '-c', session.replaceAll('8123', port)], {
        cwd,
        env,
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(run.status, run.stderr).toBe(0);
      const table = shown.split('\n').filter((l) => l.startsWith('  '));
      expect(table).toHaveLength(5);
      for (const line of table) expect(run.stdout).toContain(line);
      const report = JSON.parse(readFileSync(path.join(cwd, 'eval-out', 'eval-report.json'), 'utf8')) as {
        questions: { agents: Record<string, { answer: string } | null>; majority: { agentId: string } }[];
      };
      // Both agents answered first (the hasty one wrongly), and each tie went to the careful one.
      for (const q of report.questions) {
        expect(q.agents.hasty?.answer).toBe('It is 41.');
        expect(q.majority.agentId).toBe('careful');
      }
    } finally {
      fake.kill('SIGKILL');
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 150_000);

  it('its dataset example parses', () => {
    const [dataset] = blocks('jsonl');
    const cwd = mkdtempSync(path.join(tmpdir(), 'massgen-docs-eval-'));
    try {
      writeFileSync(path.join(cwd, 'qa.jsonl'), dataset as string);
      const { items } = readDataset('qa.jsonl', { cwd });
      expect(items.map((i) => [i.id, i.answer])).toEqual([
        ['q1', 'Canberra'],
        ['q2', 'B'],
        ['q3', 'budget'],
      ]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('every option its table names is one massgen eval takes', () => {
    const options = [...new Set([...page.matchAll(/^\| `(--[a-z-]+)/gm)].map((m) => m[1] as string))];
    expect(options.length).toBeGreaterThan(10);
    const help = spawnSync(process.execPath, [path.join(root, 'bin', 'massgen.js'), 'eval', '--help'], {
      encoding: 'utf8',
    }).stdout;
    for (const option of options) expect(help, option).toContain(option);
  });
});
