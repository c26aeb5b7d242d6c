/**
 * docs/batch.md stays true: its in-process session runs as written (the scripted model on a free port
 * instead of 8123, `massgen` being this package's built CLI), its file examples parse, and every option
 * its tables name is one the commands take.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BatchResultLineSchema, readBatchInput } from '../src/batch/index.js';
import { freePort, waitFor } from './e2e/cli-harness.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const page = readFileSync(path.join(root, 'docs', 'batch.md'), 'utf8');
const blocks = (lang: string) =>
  [...page.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1] as string);
const section = (title: string) =>
  page.slice(page.indexOf(`## ${title}`), page.indexOf('\n## ', page.indexOf(`## ${title}`) + 3));
const cli = (args: string[]) =>
  spawnSync(process.execPath, [path.join(root, 'bin', 'massgen.js'), ...args], { encoding: 'utf8' }).stdout;

describe('docs/batch.md', () => {
  it('the in-process session runs as written: 20 questions, 20 result lines', async () => {
    const [model] = blocks('js');
    const [session] = blocks('bash');
    expect(model).toContain('startFakeOpenAIServer({ port: 8123 })');
    expect(session).toContain('massgen batch --config team.yaml');
    const cwd = mkdtempSync(path.join(tmpdir(), 'massgen-docs-batch-'));
    const bin = path.join(cwd, 'bin');
    mkdirSync(bin);
    mkdirSync(path.join(cwd, 'node_modules'));
    // `massgen` on PATH is this package's CLI; `massgen/testing` resolves to this package.
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
      const run = spawnSync('bash', ['-e', '-c', (session as string).replaceAll('8123', port)], {
        cwd,
        env,
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^Batch: 20 of 20 answered \(20 completed, 0 failed\) in /);
      const lines = readFileSync(path.join(cwd, 'results.jsonl'), 'utf8').trim().split('\n');
      expect(lines).toHaveLength(20);
      for (const line of lines) {
        const parsed = BatchResultLineSchema.parse(JSON.parse(line));
        expect(parsed).toMatchObject({ status: 'completed', answer: 'The answer is 42.', winner: 'alpha' });
      }
    } finally {
      fake.kill('SIGKILL');
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 150_000);

  it('its input example parses and its output example is a result line', () => {
    const [input, output] = blocks('jsonl');
    const cwd = mkdtempSync(path.join(tmpdir(), 'massgen-docs-batch-'));
    try {
      writeFileSync(path.join(cwd, 'q.jsonl'), input as string);
      const parsed = readBatchInput('q.jsonl', { cwd, strict: true });
      expect(parsed.items.map((i) => i.id)).toEqual(['q1', 'q2', 'q3']);
      expect(() => BatchResultLineSchema.parse(JSON.parse(output as string))).not.toThrow();
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('every option its tables name is one the commands take', () => {
    const options = (text: string) => [
      ...new Set([...text.matchAll(/^\| `(--[a-z-]+)/gm)].map((m) => m[1] as string)),
    ];
    const batch = options(section('In this process'));
    const worker = options(section('On workers, through Redis'));
    expect(batch.length).toBeGreaterThan(5);
    expect(worker.length).toBeGreaterThan(5);
    const batchHelp = cli(['batch', '--help']);
    const workerHelp = cli(['worker', '--help']);
    for (const option of batch) expect(batchHelp, option).toContain(option);
    for (const option of worker) expect(workerHelp, option).toContain(option);
    for (const option of ['--attempts', '--backoff', '--job-timeout']) expect(batchHelp).toContain(option);
    expect(cli(['serve', '--help'])).toContain('--queue <url>');
    expect(cli(['queue', '--help'])).toMatch(/status[\s\S]*retry[\s\S]*drain/);
  });
});
