import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openResultFile } from './result-file.js';
import { failedOutcome, noTokens, type BatchResultLine } from './result-line.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const workdir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'massgen-batch-results-'));
  dirs.push(dir);
  return dir;
};

function line(id: string, extra: Partial<BatchResultLine> = {}): BatchResultLine {
  return {
    id,
    question: `question ${id}`,
    run_id: `run_${id}`,
    status: 'completed',
    answer: `answer ${id}`,
    winner: 'a',
    votes: { a: 2 },
    tokens: { ...noTokens(), input: 10, output: 5, total: 15 },
    cost_usd: 0.25,
    cost_known: true,
    duration_ms: 100,
    log_dir: null,
    worker: null,
    error: null,
    finished_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

const ids = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((text) => (JSON.parse(text) as { id: string }).id);

describe('openResultFile', () => {
  it('creates the file (and its folder), appends whole lines, and writes an id once', async () => {
    const file = path.join(workdir(), 'out', 'results.jsonl');
    const results = await openResultFile(file);
    expect(results.done.size).toBe(0);
    expect(await results.append(line('a'))).toBe(true);
    expect(await results.append(line('b'))).toBe(true);
    expect(await results.append(line('a'))).toBe(false);
    await results.close();
    expect(ids(file)).toEqual(['a', 'b']);
    expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(true);
  });

  it('resumes: ids already there are done, and their cost and tokens count', async () => {
    const file = path.join(workdir(), 'results.jsonl');
    writeFileSync(
      file,
      [
        line('a'),
        line('b', { ...failedOutcome({ code: 'x', message: 'broke' }) }),
        // A run that timed out without an error object did not answer either; its cost is unknown.
        line('t', { status: 'timeout', cost_usd: 0, cost_known: false }),
      ]
        .map((l) => `${JSON.stringify(l)}\n`)
        .join(''),
    );
    const results = await openResultFile(file);
    expect([...results.done]).toEqual(['a', 'b', 't']);
    expect(results.previous).toEqual({ costUsd: 0.25, costUnknown: 1, tokens: 30, failed: 2 });
    await results.append(line('c'));
    await results.close();
    expect(ids(file)).toEqual(['a', 'b', 't', 'c']);
  });

  it('cuts off a torn last line left by a crash mid-write, and says so', async () => {
    const file = path.join(workdir(), 'results.jsonl');
    writeFileSync(file, `${JSON.stringify(line('a'))}\n${JSON.stringify(line('b')).slice(0, 40)}`);
    const results = await openResultFile(file);
    expect([...results.done]).toEqual(['a']);
    expect(results.notes).toEqual([expect.stringMatching(/^dropped an incomplete last line/)]);
    await results.append(line('b'));
    await results.close();
    expect(ids(file)).toEqual(['a', 'b']);
  });

  it('keeps a whole last line that only lacks its newline', async () => {
    const file = path.join(workdir(), 'results.jsonl');
    writeFileSync(file, JSON.stringify(line('a')));
    const results = await openResultFile(file);
    expect([...results.done]).toEqual(['a']);
    expect(results.notes).toEqual([]);
    await results.append(line('b'));
    await results.close();
    expect(ids(file)).toEqual(['a', 'b']);
  });

  it('with redoErrors, drops failed lines so they run again', async () => {
    const file = path.join(workdir(), 'results.jsonl');
    const failed = line('b', { ...failedOutcome({ code: 'job_failed', message: 'no worker' }) });
    writeFileSync(file, [line('a'), failed, line('c')].map((l) => `${JSON.stringify(l)}\n`).join(''));
    const results = await openResultFile(file, { redoErrors: true });
    expect([...results.done]).toEqual(['a', 'c']);
    expect(results.notes).toEqual(['removed 1 failed line to run again (--redo-errors)']);
    await results.close();
    expect(ids(file)).toEqual(['a', 'c']);
  });
});
