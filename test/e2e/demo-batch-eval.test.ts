/**
 * The demo configs as `massgen batch`, `massgen eval` and the queue take them, with no key and no
 * server: the BUILT CLI by its absolute path, run from a temp folder outside the clone, so nothing may
 * depend on the repository's layout beyond what the package ships (`dist/`, `examples/`). A bundled data
 * file is found by name only: no reference reaches outside `examples/`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchResultLineSchema } from '../../src/batch/index.js';
import { REPO_ROOT, makeWorkdir, removeTempDirs, runCli, startCli, waitFor } from './cli-harness.js';
import { redisServerPath, startRedisServer, type RedisServer } from '../support/redis-server.js';

afterAll(removeTempDirs);

const TEAM = '@examples/demo/team.yaml';
const QA = '@examples/demo/qa.jsonl';
const dataset = fs
  .readFileSync(path.join(REPO_ROOT, 'examples', 'demo', 'qa.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { id: string; question: string; answer: string });

/** A folder outside the clone (the OS temp folder), checked: the CLI must not lean on the repository. */
function outside(): string {
  const cwd = makeWorkdir();
  expect(path.relative(REPO_ROOT, cwd).startsWith('..')).toBe(true);
  return cwd;
}

const resultLines = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => BatchResultLineSchema.parse(JSON.parse(line)));

describe('the demo configs, from a folder outside the clone', () => {
  it('batch: every bundled question answered right by the scripted team, at no cost', async () => {
    const cwd = outside();
    const run = await runCli(['batch', '--config', TEAM, '--input', QA, '--output', 'results.jsonl'], {
      cwd,
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Batch: 10 of 10 answered \(10 completed, 0 failed\) in .*\$0\.0000\n/);
    const lines = resultLines(path.join(cwd, 'results.jsonl'));
    expect(lines.map((l) => l.id).sort()).toEqual(dataset.map((q) => q.id).sort());
    for (const line of lines) {
      const expected = dataset.find((q) => q.id === line.id)?.answer as string;
      expect(line).toMatchObject({ status: 'completed', winner: 'grace', cost_usd: 0 });
      expect(line.answer, line.id).toContain(expected);
      expect(line.answer).toContain('(Scripted demo:');
      expect(line.log_dir?.startsWith(path.join(cwd, '.massgen', 'massgen_logs'))).toBe(true);
    }
  }, 150_000);

  it('eval: the team and two members score every question, the hasty one none', async () => {
    const cwd = outside();
    const run = await runCli(
      ['eval', '--config', TEAM, '--dataset', QA, '--scorer', 'contains', '--output', 'eval-out'],
      { cwd, timeoutMs: 120_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    const table = run.stdout.split('\n').filter((l) => l.startsWith('  ') && !l.startsWith('   '));
    expect(table).toEqual([
      '  team                   10/10  100.0%  [72.2%, 100.0%]',
      '  single:ada             10/10  100.0%  [72.2%, 100.0%]  vs team: 0/0, p=1.0000',
      '  single:grace           10/10  100.0%  [72.2%, 100.0%]  vs team: 0/0, p=1.0000',
      '  single:linus            0/10    0.0%  [0.0%, 27.8%]  vs team: 10/0, p=0.0020',
      '  majority               10/10  100.0%  [72.2%, 100.0%]  vs team: 0/0, p=1.0000',
      '  oracle                 10/10  100.0%  [72.2%, 100.0%]  vs team: 0/0, p=1.0000',
    ]);
    expect(fs.existsSync(path.join(cwd, 'eval-out', 'eval-report.md'))).toBe(true);
  }, 150_000);

  it('a bundled data file is found by its name only: an unknown one is named, ../ reaches nothing', async () => {
    const cwd = outside();
    // A file that a path joined onto examples/ would reach.
    fs.writeFileSync(path.join(cwd, 'outside.jsonl'), '{"id": "x", "question": "What is 1 plus 1?"}\n');
    const escape = path.relative(path.join(REPO_ROOT, 'examples'), path.join(cwd, 'outside.jsonl'));
    for (const ref of ['@examples/demo/nope.jsonl', `@examples/${escape}`]) {
      const run = await runCli(['batch', '--config', TEAM, '--input', ref, '--output', 'r.jsonl'], { cwd });
      expect(run.code, ref).toBe(1);
      expect(run.stderr).toContain(`massgen: error: unknown example data file "${ref}"`);
      expect(run.stderr).toContain(`hint: the bundled ones: ${QA}`);
      expect(fs.existsSync(path.join(cwd, 'r.jsonl'))).toBe(false);
    }
  });
});

describe('as installed: only the files the package ships', () => {
  it('massgen demo and the demo batch run from a copy of the published files', async () => {
    // `npm pack`'s own file list, copied beside the dependencies: no src/, test/ or scripts/ to lean on.
    const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    expect(pack.status, pack.stderr).toBe(0);
    const files = (JSON.parse(pack.stdout) as { files: { path: string }[] }[])[0]?.files ?? [];
    expect(files.map((f) => f.path)).toEqual(
      expect.arrayContaining([
        'dist/backends/demo/index.js',
        'examples/demo/team.yaml',
        'examples/demo/qa.jsonl',
      ]),
    );
    const installed = path.join(makeWorkdir(), 'massgen');
    for (const { path: file } of files) {
      fs.mkdirSync(path.dirname(path.join(installed, file)), { recursive: true });
      fs.copyFileSync(path.join(REPO_ROOT, file), path.join(installed, file));
    }
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(installed, 'node_modules'), 'dir');
    const bin = path.join(installed, 'bin', 'massgen.js');
    const cwd = outside();
    const run = (args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], {
        cwd,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, TMPDIR: cwd },
        encoding: 'utf8',
        timeout: 120_000,
      });
    const demo = run(['demo', 'What is 6 times 7?']);
    expect(demo.status, demo.stderr).toBe(0);
    expect(demo.stdout).toContain('The answer is 42: 6 × 7 = 42. Check: 42 ÷ 7 = 6.');
    const batch = run(['batch', '--config', TEAM, '--input', QA, '--output', 'results.jsonl']);
    expect(batch.status, batch.stderr).toBe(0);
    expect(batch.stdout).toMatch(/^Batch: 10 of 10 answered \(10 completed, 0 failed\)/);
  }, 150_000);
});

describe.skipIf(redisServerPath === null)(
  redisServerPath === null ? 'on the queue (skipped: redis-server is not installed)' : 'on the queue',
  () => {
    let redis: RedisServer;
    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(async () => {
      await redis?.stop();
    });

    it('a worker in a folder of its own runs the demo team from the job alone', async () => {
      const cwd = outside();
      const workerDir = path.join(cwd, 'w1');
      fs.mkdirSync(workerDir);
      // The batch signs the job and the worker checks it with the secret they share (docs/batch.md).
      const env = { MASSGEN_QUEUE_SECRET: 'demo-queue-secret-0123456789abcdef' };
      const worker = startCli(['worker', '--queue', redis.url, '--queue-name', 'demo'], {
        cwd: workerDir,
        env,
        timeoutMs: 120_000,
      });
      try {
        await waitFor(
          () => /taking runs/.test(worker.stdout),
          30_000,
          'the worker',
          () => worker.stderr,
        );
        const run = await runCli(
          [
            'batch',
            '--config',
            TEAM,
            '--input',
            QA,
            '--output',
            'results.jsonl',
            '--queue',
            redis.url,
            '--queue-name',
            'demo',
          ],
          { cwd, env, timeoutMs: 120_000 },
        );
        expect(run.code, run.stderr).toBe(0);
        const lines = resultLines(path.join(cwd, 'results.jsonl'));
        expect(lines).toHaveLength(10);
        for (const line of lines) {
          expect(line).toMatchObject({ status: 'completed', winner: 'grace' });
          expect(line.worker).toMatch(/:\d+$/);
          expect(line.log_dir?.startsWith(workerDir)).toBe(true);
        }
      } finally {
        worker.child.kill('SIGTERM');
        await worker.result;
      }
    }, 150_000);
  },
);
