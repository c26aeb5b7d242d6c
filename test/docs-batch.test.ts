/**
 * docs/batch.md stays true: its in-process session runs as written (the demo team, from a folder outside
 * the clone, `massgen` being this package's built CLI), its file examples parse, and every option its
 * tables name is one the commands take.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatchResultLineSchema, readBatchInput } from '../src/batch/index.js';
import { ROOT, codeBlocks, readDoc, runDocSession } from './support/doc-session.js';

const page = readDoc('batch.md');
const blocks = (lang: string) => codeBlocks(page, lang);
const section = (title: string) =>
  page.slice(page.indexOf(`## ${title}`), page.indexOf('\n## ', page.indexOf(`## ${title}`) + 3));
const cli = (args: string[]) =>
  spawnSync(process.execPath, [path.join(ROOT, 'bin', 'massgen.js'), ...args], { encoding: 'utf8' }).stdout;

describe('docs/batch.md', () => {
  it('the in-process session runs as written: the bundled questions, then 20 of its own', () => {
    const [session] = blocks('bash');
    expect(session).toContain(
      'massgen batch --config @examples/demo/team.yaml --input @examples/demo/qa.jsonl',
    );
    expect(session).not.toMatch(/8123|fake-model/);
    runDocSession({ session: session as string, prefix: 'massgen-docs-batch-' }, (run, cwd) => {
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^Batch: 10 of 10 answered \(10 completed, 0 failed\) in /m);
      expect(run.stdout).toMatch(/^Batch: 20 of 20 answered \(20 completed, 0 failed\) in /m);
      // As the page says, the demo team calls no model: it costs nothing (an unpriced model would
      // read "cost unknown": test/e2e/honest-output.test.ts).
      expect(run.stdout).toMatch(/ tokens, \$0\.0000\n/);
      const read = (file: string) =>
        readFileSync(path.join(cwd, file), 'utf8')
          .trim()
          .split('\n')
          .map((line) => BatchResultLineSchema.parse(JSON.parse(line)));
      const bundled = read('results.jsonl');
      expect(bundled).toHaveLength(10);
      for (const line of bundled) expect(line).toMatchObject({ status: 'completed', winner: 'grace' });
      const own = read('more.jsonl');
      expect(own).toHaveLength(20);
      for (const line of own) {
        const i = Number(line.id.slice(1));
        expect(line).toMatchObject({ status: 'completed', winner: 'grace' });
        expect(line.answer).toContain(`The answer is ${i * 7}: ${i} × 7 = ${i * 7}.`);
      }
    });
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
