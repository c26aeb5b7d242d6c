/**
 * `massgen batch` in process, through the built CLI: result lines, malformed and duplicate input, and a
 * batch interrupted with Ctrl-C that keeps its finished lines and resumes without redoing them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/index.js';
import {
  batchWorkdir,
  convergingHandler,
  linesOf,
  runCli,
  startCli,
  useFakeServer,
  waitFor,
} from './cli-harness.js';

const fake = useFakeServer();

const setup = (count: number) => batchWorkdir(fake.server.url, count);

const resultIds = (cwd: string): string[] => {
  try {
    return linesOf(readFileSync(path.join(cwd, 'r.jsonl'), 'utf8')).map(
      (l) => (JSON.parse(l) as { id: string }).id,
    );
  } catch {
    return [];
  }
};

const questionOf = (body: FakeChatRequestBody) =>
  /Question (q\d+):/.exec(JSON.stringify(body.messages ?? []))?.[1] ?? null;

describe('massgen batch (in process)', () => {
  it('writes one line per question; malformed lines are reported with their line numbers', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = setup(3);
    writeFileSync(path.join(cwd, 'q.jsonl'), `${readFileSync(path.join(cwd, 'q.jsonl'), 'utf8')}{oops\n`);
    const result = await runCli(
      ['batch', '--config', 'team.yaml', '--input', 'q.jsonl', '--output', 'r.jsonl'],
      {
        cwd,
        timeoutMs: 60_000,
      },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('massgen batch: q.jsonl:4: not valid JSON');
    expect(result.stderr).toMatch(/\[3\/3\] q\d completed, winner alpha/);
    expect(result.stdout).toMatch(/^Batch: 3 of 3 answered \(3 completed, 0 failed\)/);
    expect(resultIds(cwd).sort()).toEqual(['q1', 'q2', 'q3']);
    const line = JSON.parse(linesOf(readFileSync(path.join(cwd, 'r.jsonl'), 'utf8'))[0] as string);
    // The fake model has no price: the cost is not known (not zero).
    expect(line).toMatchObject({
      winner: 'alpha',
      votes: { alpha: 2 },
      error: null,
      worker: null,
      cost_known: false,
    });
    expect(Object.keys(line)).toEqual([
      'id',
      'question',
      'run_id',
      'status',
      'answer',
      'winner',
      'votes',
      'tokens',
      'cost_usd',
      'cost_known',
      'duration_ms',
      'log_dir',
      'worker',
      'error',
      'finished_at',
    ]);
  }, 120_000);

  it('refuses duplicate ids with both line numbers, and --strict stops at a malformed line (exit 1)', async () => {
    const cwd = setup(2);
    writeFileSync(
      path.join(cwd, 'dup.jsonl'),
      `${JSON.stringify({ id: 'x', question: 'a?' })}\n${JSON.stringify({ id: 'x', question: 'b?' })}\n`,
    );
    const dup = await runCli(
      ['batch', '--config', 'team.yaml', '--input', 'dup.jsonl', '--output', 'r.jsonl'],
      { cwd },
    );
    expect(dup.code).toBe(1);
    expect(dup.stderr).toBe(
      'massgen: error: dup.jsonl:2: duplicate id "x" (first on line 1)\n' +
        'hint: every line needs its own id: results are matched to questions (and resumed) by id\n',
    );
    writeFileSync(path.join(cwd, 'bad.jsonl'), '{"id": "a"}\n');
    const strict = await runCli(
      ['batch', '--config', 'team.yaml', '--input', 'bad.jsonl', '--output', 'r.jsonl', '--strict'],
      { cwd },
    );
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/^massgen: error: bad\.jsonl:1: "question" is missing\n/);
    expect(fake.server.requests).toHaveLength(0);
  }, 120_000);

  it('Ctrl-C stops cleanly with every finished line kept; the rerun does not redo finished ids', async () => {
    // q1 and q2 answer; q3 and later hang until the test lets them go.
    let release = false;
    fake.server.setHandler((body): FakeResponse => {
      const question = questionOf(body);
      if (!release && question !== 'q1' && question !== 'q2') return { hang: true, sendHeaders: true };
      return convergingHandler(body);
    });
    const cwd = setup(6);
    const args = [
      'batch',
      '--config',
      'team.yaml',
      '--input',
      'q.jsonl',
      '--output',
      'r.jsonl',
      '--concurrency',
      '3',
    ];
    const first = startCli(args, { cwd, timeoutMs: 60_000 });
    await waitFor(() => resultIds(cwd).length === 2, 45_000, 'the first two result lines');
    first.child.kill('SIGINT');
    const stopped = await first.result;
    expect(stopped.code).toBe(130);
    expect(resultIds(cwd).sort()).toEqual(['q1', 'q2']);
    expect(stopped.stdout).toContain(
      'Interrupted: 4 not answered yet — run the same command again to resume.',
    );

    release = true;
    const before = fake.server.requests.length;
    const second = await runCli(args, { cwd, timeoutMs: 60_000 });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/Batch: 6 of 6 answered \(6 completed, 0 failed, 2 from an earlier run\)/);
    const ids = resultIds(cwd);
    expect(ids.sort()).toEqual(['q1', 'q2', 'q3', 'q4', 'q5', 'q6']);
    const askedAgain = new Set(
      fake.server.requests.slice(before).map((r) => (r.body ? questionOf(r.body) : null)),
    );
    expect(askedAgain.has('q1')).toBe(false);
    expect(askedAgain.has('q2')).toBe(false);
  }, 150_000);
});
