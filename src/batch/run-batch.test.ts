import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { convergingTeam } from '../testing/converging-team.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../testing/fake-openai-server.js';
import { ConfigError } from '../types/errors.js';
import { sharedLimiters } from './in-process-executor.js';
import type { BatchResultLine } from './result-line.js';
import { runBatch, type BatchProgress, type RunBatchOptions } from './run-batch.js';

let fake: FakeOpenAIServer;
const dirs: string[] = [];
beforeAll(async () => {
  fake = await startFakeOpenAIServer();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  // Every call costs exactly $1 (see `pricing` below): 1 prompt token at $1M per million.
  const team = convergingTeam({ final: 'The answer is 42.' });
  fake.setHandler((body, index, view) => ({
    ...team(body, index, view),
    usage: { promptTokens: 1, completionTokens: 0 },
  }));
});
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function team(ids: string[] = ['a', 'b']) {
  return {
    agents: ids.map((id) => ({
      id,
      backend: { type: 'chatcompletion', model: 'fake-model', base_url: fake.url },
    })),
    pricing: { 'fake-model': { input_per_million: 1_000_000, output_per_million: 0 } },
    ui: { logging_enabled: false },
  };
}

/** A working folder with team.yaml and questions q1…qN (`Question qN: …`). */
function workdir(count: number, extra: Record<string, unknown>[] = []): string {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'massgen-run-batch-'));
  dirs.push(cwd);
  writeFileSync(path.join(cwd, 'team.yaml'), stringify(team()));
  const lines = Array.from({ length: count }, (_, i) => ({
    id: `q${i + 1}`,
    question: `Question q${i + 1}: what is 6 x 7?`,
  }));
  writeFileSync(
    path.join(cwd, 'q.jsonl'),
    [...lines, ...extra].map((l) => `${JSON.stringify(l)}\n`).join(''),
  );
  return cwd;
}

const readLines = (cwd: string): BatchResultLine[] =>
  readFileSync(path.join(cwd, 'r.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((text) => JSON.parse(text) as BatchResultLine);

/** The question ids the fake model was asked about so far. */
const askedIds = () =>
  new Set(fake.requests.flatMap((r) => /Question (q\d+):/.exec(r.view?.text ?? '')?.[1] ?? []));

/** The batch `workdir` sets up (q.jsonl through team.yaml into r.jsonl), with the test's own options. */
const batchIn = (cwd: string, options: Partial<RunBatchOptions> = {}) =>
  runBatch({ cwd, env: {}, config: 'team.yaml', input: 'q.jsonl', output: 'r.jsonl', ...options });

describe('runBatch in process', () => {
  it('answers every question with one line each: answer, winner, votes, tokens, cost, duration', async () => {
    const cwd = workdir(6);
    const progress: BatchProgress[] = [];
    const summary = await batchIn(cwd, { concurrency: 3, onProgress: (p) => progress.push(p) });
    const lines = readLines(cwd);
    expect(lines.map((l) => l.id).sort()).toEqual(['q1', 'q2', 'q3', 'q4', 'q5', 'q6']);
    for (const line of lines) {
      expect(line).toMatchObject({
        question: `Question ${line.id}: what is 6 x 7?`,
        status: 'completed',
        answer: 'The answer is 42.',
        winner: 'a',
        votes: { a: 2 },
        worker: null,
        error: null,
        log_dir: null,
      });
      expect(line.cost_usd).toBeGreaterThan(0);
      expect(line.cost_known).toBe(true);
      expect(line.tokens.input).toBe(line.cost_usd); // $1 per prompt token
      expect(line.duration_ms).toBeGreaterThanOrEqual(0);
    }
    expect(summary).toMatchObject({
      total: 6,
      done: 6,
      written: 6,
      failed: 0,
      notRun: 0,
      stoppedBy: null,
      resumed: 0,
    });
    expect(summary.costUsd).toBe(fake.requests.length);
    // A report before the first line, then one per line, counting up.
    expect(progress.map((p) => p.done)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(progress.at(-1)?.line?.id).toBeDefined();
  });

  it('a model without a known price: the cost is unknown, not zero', async () => {
    const cwd = workdir(2);
    const { pricing: _priced, ...unpriced } = team();
    writeFileSync(path.join(cwd, 'team.yaml'), stringify(unpriced));
    const summary = await batchIn(cwd);
    const lines = readLines(cwd);
    expect(lines.map((l) => [l.status, l.cost_usd, l.cost_known])).toEqual([
      ['completed', 0, false],
      ['completed', 0, false],
    ]);
    expect(summary).toMatchObject({ costUsd: 0, costUnknown: 2, failed: 0 });
  });

  it('an interrupted batch keeps every finished line and a rerun does not redo them', async () => {
    const cwd = workdir(6);
    const controller = new AbortController();
    const first = await batchIn(cwd, {
      concurrency: 2,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.written === 2) controller.abort();
      },
    });
    expect(first.stoppedBy).toBe('interrupt');
    const finished = readLines(cwd).map((l) => l.id);
    expect(finished.length).toBeGreaterThanOrEqual(2);
    expect(first.notRun).toBe(6 - finished.length);

    fake.reset();
    const team = convergingTeam({ final: 'The answer is 42.' });
    fake.setHandler((body, index, view) => ({ ...team(body, index, view), usage: { promptTokens: 1 } }));
    const second = await batchIn(cwd);
    expect(second).toMatchObject({ resumed: finished.length, done: 6, notRun: 0, stoppedBy: null });
    const ids = readLines(cwd).map((l) => l.id);
    expect(ids.sort()).toEqual(['q1', 'q2', 'q3', 'q4', 'q5', 'q6']);
    // Nothing finished the first time was asked again.
    for (const id of finished) expect(askedIds().has(id)).toBe(false);
  });

  it('stops taking new runs at maxCostUsd, keeps what finished, and counts earlier lines on resume', async () => {
    const cwd = workdir(5);
    const capped = await batchIn(cwd, { concurrency: 1, maxCostUsd: 1 });
    expect(capped).toMatchObject({ written: 1, done: 1, notRun: 4, stoppedBy: 'cost' });
    // The same limit again: the batch has already spent it, so nothing more runs.
    const again = await batchIn(cwd, { maxCostUsd: 1 });
    expect(again).toMatchObject({ written: 0, notRun: 4, stoppedBy: 'cost' });
    const rest = await batchIn(cwd);
    expect(rest).toMatchObject({ written: 4, done: 5, stoppedBy: null });
    expect(readLines(cwd)).toHaveLength(5);
  });

  it('sends attachments with the question; an unreadable one is that line’s error', async () => {
    const cwd = workdir(0, [
      { id: 'with-notes', question: 'Question q1: summarise the notes', attachments: ['notes.txt'] },
      { id: 'missing', question: 'Question q2: and these?', attachments: ['gone.txt'] },
    ]);
    writeFileSync(path.join(cwd, 'notes.txt'), 'The launch moved to Tuesday.\n');
    const summary = await batchIn(cwd);
    expect(summary).toMatchObject({ done: 2, failed: 1 });
    const byId = Object.fromEntries(readLines(cwd).map((l) => [l.id, l]));
    expect(byId['with-notes']?.status).toBe('completed');
    expect(
      fake.requests.some(
        (r) => r.view?.text.includes('Attached file notes.txt:') && r.view.text.includes('moved to Tuesday'),
      ),
    ).toBe(true);
    expect(byId['missing']).toMatchObject({ status: 'failed', error: { code: 'config_error' } });
    expect(byId['missing']?.error?.message).toMatch(/attachment .*gone\.txt: file not found/);
    expect(askedIds().has('q2')).toBe(false);
  });

  it('runs a line with its own config', async () => {
    const cwd = workdir(1, [{ id: 'solo-line', question: 'Question q9: alone?', config: 'solo.yaml' }]);
    writeFileSync(path.join(cwd, 'solo.yaml'), stringify(team(['solo'])));
    await batchIn(cwd);
    const byId = Object.fromEntries(readLines(cwd).map((l) => [l.id, l]));
    expect(byId['q1']?.winner).toBe('a');
    expect(byId['solo-line']?.winner).toBe('solo');
  });

  it('a config that cannot run stops the batch before the first run, naming the file', async () => {
    const cwd = workdir(2);
    writeFileSync(
      path.join(cwd, 'keyless.yaml'),
      stringify({ agents: [{ id: 'a', backend: { type: 'openai', model: 'gpt-4o' } }] }),
    );
    await expect(
      runBatch({ cwd, env: {}, config: 'keyless.yaml', input: 'q.jsonl', output: 'r.jsonl' }),
    ).rejects.toThrow(ConfigError);
    await expect(
      runBatch({ cwd, env: {}, config: 'nope.yaml', input: 'q.jsonl', output: 'r.jsonl' }),
    ).rejects.toThrow(/nope\.yaml/);
    expect(fake.requests).toHaveLength(0);
  });

  it('shares one rate limiter per model across the runs of a batch', () => {
    const limiters = sharedLimiters();
    expect(limiters('m', { concurrent: 1 })).toBe(limiters('m', { concurrent: 1 }));
    expect(limiters('m', { concurrent: 1 })).not.toBe(limiters('other', { concurrent: 1 }));
  });
});
