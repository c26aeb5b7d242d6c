/**
 * `massgen eval --benchmark` through the built CLI, with no network: a local server plays the Hugging
 * Face datasets server (rows in each benchmark's real shape) and a scripted team answers right or
 * wrong by design, in each benchmark's own answer format. Every number of each report is computed by
 * hand here; the rows record is checked against rows hashed here; HumanEval's answers run in the real
 * sandbox. Also: the cache serves a rerun offline, the gated set asks for HF_TOKEN, the token never
 * shows, a hostile server is answered with one inert line, and the zero-key local model runs it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAKE_SHA,
  gpqaRows,
  gsm8kRows,
  humanEvalRows,
  mmluProRows,
  startFakeDatasetsServer,
  type FakeDatasetsServer,
} from '../../src/eval/benchmarks/fake-datasets-server.test-support.js';
import { selectRows } from '../../src/eval/benchmarks/load-benchmark.js';
import { sandboxSupport } from '../../src/tools/execute-command/sandbox-support.js';
import type { FakeRequestView, FakeResponse } from '../../src/testing/index.js';
import {
  REPO_ROOT,
  agentEntry,
  makeWorkdir,
  persona,
  runCli,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';
import { mcnemar, wilson } from './eval-hand-stats.js';

const fake = useFakeServer();
let datasets: FakeDatasetsServer;
beforeAll(async () => {
  datasets = await startFakeDatasetsServer();
  datasets.setSplit('openai/gsm8k', 'main', 'test', gsm8kRows(25));
  datasets.setSplit('TIGER-Lab/MMLU-Pro', 'default', 'test', mmluProRows(20));
  datasets.setSplit('Idavidrein/gpqa', 'gpqa_diamond', 'train', gpqaRows(20));
  datasets.setSplit('openai/openai_humaneval', 'openai_humaneval', 'test', humanEvalRows(20));
});
afterAll(() => datasets.close());

const AGENTS = ['alpha', 'beta', 'gamma'] as const;
type Agent = (typeof AGENTS)[number];
type Bench = 'gsm8k' | 'mmlu-pro' | 'gpqa' | 'humaneval';

// ---- the design: who is right on row i ----------------------------------------------------------
const RIGHT: Record<Agent | 'team', (i: number) => boolean> = {
  alpha: (i) => i % 2 === 0,
  beta: (i) => i % 3 === 0,
  gamma: (i) => i % 5 !== 0,
  team: (i) => i % 4 !== 1,
};
/** best-of-n:alpha's samples (separate calls): right on odd rows, every sample alike. */
const SAMPLE_RIGHT = (i: number) => i % 2 === 1;

/** A right answer, or agent number `variant`'s own wrong one, in the benchmark's answer format. */
function answer(bench: Bench, i: number, text: string, right: boolean, variant: number): string {
  const off = 1 + variant;
  if (bench === 'gsm8k') {
    const n = (i + 2) * 1000 + (right ? 0 : off);
    return right
      ? `Each friend got 1,000 clips, so she sold $${n.toLocaleString('en-US')}.00 worth: ${n.toLocaleString('en-US')} clips.`
      : `I count ${n.toLocaleString('en-US')} dollars`;
  }
  if (bench === 'humaneval')
    return `Here it is:\n\`\`\`python\ndef add_${i}(x: int) -> int:\n    return x + ${right ? i : i + off}\n\`\`\`\n`;
  const [pattern, count] =
    bench === 'mmlu-pro' ? [/^(?:Options: )?([A-J])\. right \d+$/m, 10] : [/^\(([A-D])\) right \d+$/m, 4];
  const letter = (pattern.exec(text)?.[1] as string).charCodeAt(0) - 65;
  const pick = String.fromCharCode(65 + (right ? letter : (letter + off) % count));
  if (bench === 'mmlu-pro') return right ? `Let's see. The answer is (${pick}).` : `Answer: ${pick}`;
  return right ? `The correct answer is (${pick})` : `So the answer is ${pick}.`;
}

const markerOf = (text: string) => {
  const m = /\[(gsm8k|mmlu-pro|gpqa|humaneval) (\d+)\]/.exec(text);
  return m ? { bench: m[1] as Bench, i: Number(m[2]) } : null;
};

/** The scripted team (and best-of-n's lone calls, the ones with max_tokens). */
function handler(body: unknown, _index: number, view: FakeRequestView): FakeResponse {
  const { bench, i } = markerOf(view.text)!;
  if ((body as { max_tokens?: number }).max_tokens !== undefined)
    return { text: answer(bench, i, view.text, SAMPLE_RIGHT(i), 3) };
  if (!view.toolNames.includes('new_answer')) return { text: answer(bench, i, view.text, RIGHT.team(i), 4) };
  const agent = /You are the agent called (\S+)\./.exec(view.system)?.[1] as Agent;
  if (view.text.includes(`[${agent}]`) && view.votableIds.length > 0)
    return { toolCalls: [{ name: 'vote', arguments: { agent_id: view.votableIds[0], reason: 'agreed' } }] };
  const content = `[${agent}] ${answer(bench, i, view.text, RIGHT[agent](i), AGENTS.indexOf(agent))}`;
  return { toolCalls: [{ name: 'new_answer', arguments: { content } }] };
}

function setup(): string {
  const cwd = makeWorkdir();
  writeConfig(
    cwd,
    { agents: AGENTS.map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })) },
    'team.yaml',
  );
  return cwd;
}
const envFor = (extra: Record<string, string> = {}) => ({
  MASSGEN_HF_DATASETS_ENDPOINT: datasets.url,
  MASSGEN_HF_ENDPOINT: datasets.url,
  ...extra,
});

/** The rows' hash as the docs state it: one line `[row_idx, row]` per row, keys sorted. */
function rowsHash(rows: Record<string, unknown>[], indices: number[]): string {
  const sorted = (row: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(row).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const hash = createHash('sha256');
  for (const i of indices) hash.update(`${JSON.stringify([i, sorted(rows[i]!)])}\n`);
  return hash.digest('hex');
}

interface System {
  name: string;
  correct: number;
  n: number;
  ci95: { low: number; high: number };
  vsTeam: { teamOnly: number; baselineOnly: number; pValue: number } | null;
  vsBestMember: { systemOnly: number; memberOnly: number; pValue: number } | null;
}
interface Report {
  benchmark: Record<string, unknown> & { rows: number[]; rowsSha256: string };
  models: { agent: string; backend: string; model: string }[];
  summary: { questions: number; systems: System[]; bestMember: string };
}

/** Every system's numbers against the design, computed here. */
function checkNumbers(report: Report, rows: number[], withBestOfN: boolean): void {
  const vec = (f: (i: number) => boolean) => rows.map(f);
  const single = Object.fromEntries(AGENTS.map((a) => [`single:${a}`, vec(RIGHT[a])]));
  // Wrong answers never agree (each agent has its own): two right → right; one right → a three-way
  // tie, which goes to alpha (first in the config).
  const majority = vec((i) => {
    const right = AGENTS.filter((a) => RIGHT[a](i)).length;
    return right >= 2 || (right === 1 && RIGHT.alpha(i));
  });
  const expected: Record<string, boolean[]> = {
    team: vec(RIGHT.team),
    ...single,
    majority,
    ...(withBestOfN ? { 'best-of-n:alpha': vec(SAMPLE_RIGHT) } : {}),
    oracle: vec((i) => AGENTS.some((a) => RIGHT[a](i))),
  };
  expect(report.summary.systems.map((s) => s.name)).toEqual(Object.keys(expected));
  const counts = AGENTS.map((a) => single[`single:${a}`]!.filter(Boolean).length);
  const best = AGENTS[counts.indexOf(Math.max(...counts))]!;
  expect(report.summary.bestMember).toBe(best);
  const team = expected.team!;
  const member = expected[`single:${best}`]!;
  for (const s of report.summary.systems) {
    const mine = expected[s.name]!;
    const k = mine.filter(Boolean).length;
    expect([s.name, s.correct, s.n]).toEqual([s.name, k, rows.length]);
    expect(s.ci95.low).toBeCloseTo(wilson(k, rows.length).low, 12);
    expect(s.ci95.high).toBeCloseTo(wilson(k, rows.length).high, 12);
    if (s.name === 'team') expect(s.vsTeam).toBeNull();
    else {
      const teamOnly = mine.filter((r, i) => team[i] && !r).length;
      const baselineOnly = mine.filter((r, i) => !team[i] && r).length;
      expect(s.vsTeam).toEqual({
        teamOnly,
        baselineOnly,
        pValue: expect.closeTo(mcnemar(teamOnly, baselineOnly), 12),
      });
    }
    if (s.name === `single:${best}`) expect(s.vsBestMember).toBeNull();
    else {
      const systemOnly = mine.filter((r, i) => r && !member[i]).length;
      const memberOnly = mine.filter((r, i) => !r && member[i]).length;
      expect(s.vsBestMember, s.name).toEqual({
        systemOnly,
        memberOnly,
        pValue: expect.closeTo(mcnemar(systemOnly, memberOnly), 12),
      });
    }
  }
}

const CASES = [
  {
    bench: 'gsm8k',
    name: 'GSM8K',
    dataset: 'openai/gsm8k',
    config: 'main',
    split: 'test',
    rows: gsm8kRows(25),
    args: ['--limit', '20', '--baselines', 'single,majority,best-of-n'],
  },
  {
    bench: 'mmlu-pro',
    name: 'MMLU-Pro',
    dataset: 'TIGER-Lab/MMLU-Pro',
    config: 'default',
    split: 'test',
    rows: mmluProRows(20),
    args: [],
  },
  {
    bench: 'gpqa-diamond',
    name: 'GPQA-Diamond',
    dataset: 'Idavidrein/gpqa',
    config: 'gpqa_diamond',
    split: 'train',
    rows: gpqaRows(20),
    args: ['--seed', '5'],
  },
  {
    bench: 'humaneval',
    name: 'HumanEval',
    dataset: 'openai/openai_humaneval',
    config: 'openai_humaneval',
    split: 'test',
    rows: humanEvalRows(20),
    args: [],
  },
] as const;

const sandbox = sandboxSupport(process.env.PATH);

describe('massgen eval --benchmark', () => {
  for (const c of CASES) {
    const skip = c.bench === 'humaneval' && !sandbox.ok ? ` (skipped: ${sandbox.reason})` : '';
    it.skipIf(skip !== '')(
      `${c.name}: 20 rows through a scripted team; every number and the rows record match the hand computation${skip}`,
      async () => {
        fake.server.setHandler(handler);
        const cwd = setup();
        const token = 'hf_E2Esecret0123456789';
        const args = ['eval', '--benchmark', c.bench, '--config', 'team.yaml', '--output', 'out', ...c.args];
        const result = await runCli(args, { cwd, env: envFor({ HF_TOKEN: token }), timeoutMs: 280_000 });
        expect(result.stderr).not.toMatch(/error/i);
        expect(result.code).toBe(0);
        const seed = c.bench === 'gpqa-diamond' ? 5 : 0;
        const indices = selectRows(c.rows.length, c.bench === 'gsm8k' ? 20 : undefined, seed);
        expect(indices).toHaveLength(20);
        const sample = c.bench === 'gsm8k' ? 'a sample of 20' : 'all';
        expect(result.stdout).toContain(
          `Eval: 20 questions of ${c.name} (${c.dataset} ${c.config}/${c.split}, revision ${FAKE_SHA.slice(0, 12)}, ${sample} of ${c.rows.length} rows, seed ${seed})\n`,
        );
        // Fetched once, with a progress line (not a terminal here: plain lines).
        expect(result.stderr).toMatch(new RegExp(`Downloaded ${c.dataset} ${c.config}/${c.split} `));

        const out = path.join(cwd, 'out');
        const report = JSON.parse(readFileSync(path.join(out, 'eval-report.json'), 'utf8')) as Report;
        expect(report.benchmark).toMatchObject({
          benchmark: c.bench,
          dataset: c.dataset,
          config: c.config,
          split: c.split,
          revision: FAKE_SHA,
          numRowsTotal: c.rows.length,
          seed,
          rows: indices,
          rowsSha256: rowsHash(c.rows as unknown as Record<string, unknown>[], indices),
        });
        expect(report.models).toEqual(
          AGENTS.map((a) => ({ agent: a, backend: 'chatcompletion', model: `model-${a}` })),
        );
        checkNumbers(report, indices, c.bench === 'gsm8k');
        const markdown = readFileSync(path.join(out, 'eval-report.md'), 'utf8');
        expect(markdown).toContain(`## Benchmark: ${c.name}`);
        expect(markdown).toContain(`SHA-256 of the rows: \`${report.benchmark.rowsSha256}\``);
        expect(markdown).toContain(`revision \`${FAKE_SHA}\``);
        expect(readFileSync(path.join(out, 'eval-chart.svg'), 'utf8')).toMatch(/^<svg /);

        // The token went nowhere: not to this server, not into anything written or printed.
        expect(datasets.requests.filter((r) => r.authorization !== undefined)).toEqual([]);
        expect(`${result.stdout}${result.stderr}`).not.toContain(token);
        for (const dir of [out, path.join(cwd, '.cache'), path.join(cwd, '.massgen')])
          for (const file of existsSync(dir)
            ? readdirSync(dir, { recursive: true, withFileTypes: true })
            : [])
            if (file.isFile())
              expect(readFileSync(path.join(file.parentPath, file.name), 'utf8')).not.toContain(token);
      },
      300_000,
    );
  }

  it('a rerun uses the cache, offline too; another seed in the same folder is refused', async () => {
    fake.server.setHandler(handler);
    const cwd = setup();
    const args = [
      'eval',
      '--benchmark',
      'mmlu-pro',
      '--limit',
      '2',
      '--config',
      'team.yaml',
      '--output',
      'out',
    ];
    const first = await runCli(args, { cwd, env: envFor(), timeoutMs: 120_000 });
    expect(first.code).toBe(0);
    const rowsAsked = datasets.requests.filter((r) => r.path === '/rows').length;
    const offline = await startFakeDatasetsServer();
    await offline.close();
    const env = { MASSGEN_HF_DATASETS_ENDPOINT: offline.url, MASSGEN_HF_ENDPOINT: offline.url };
    const again = await runCli(args, { cwd, env, timeoutMs: 120_000 });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(
      /cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): using the cached TIGER-Lab\/MMLU-Pro default\/test \(revision e53f048856ff/,
    );
    expect(again.stderr).not.toContain('Downloaded');
    expect(again.stdout).toMatch(/Batch: 2 of 2 answered \(.*2 from an earlier run\)/);
    expect(datasets.requests.filter((r) => r.path === '/rows').length).toBe(rowsAsked);
    const reseeded = await runCli([...args, '--seed', '9'], { cwd, env, timeoutMs: 60_000 });
    expect(reseeded.code).toBe(1);
    expect(reseeded.stderr).toMatch(/holds the answers of another benchmark run \(its seed differs\)/);
  }, 300_000);

  it('the gated set without HF_TOKEN: one line naming HF_TOKEN, exit 1, no model called', async () => {
    fake.server.setHandler(handler);
    const cwd = setup();
    const result = await runCli(['eval', '--benchmark', 'gpqa-diamond', '--config', 'team.yaml'], {
      cwd,
      env: envFor(),
      timeoutMs: 60_000,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'massgen: error: GPQA-Diamond (Idavidrein/gpqa) is gated on Hugging Face: set HF_TOKEN to an access token of an account that accepted its terms at https://huggingface.co/datasets/Idavidrein/gpqa\n',
    );
    expect(fake.server.requests).toHaveLength(0);
  }, 60_000);

  it("a hostile server's words are printed inert, in one line; a huge answer is refused", async () => {
    const cwd = setup();
    const env = envFor({ XDG_CACHE_HOME: path.join(cwd, 'fresh-cache') });
    datasets.respond((r) =>
      r.path === '/rows' ? { status: 404, body: { error: 'gone \x1b]0;pwned\x07\x1b[2J' } } : undefined,
    );
    try {
      const result = await runCli(['eval', '--benchmark', 'gsm8k', '--config', 'team.yaml'], {
        cwd,
        env,
        timeoutMs: 60_000,
      });
      expect(result.code).toBe(1);
      expect(result.stderr).not.toContain('\x1b');
      expect(result.stderr).toContain('(HTTP 404: gone ␛]0;pwned␇␛[2J)');
      datasets.respond((r) => (r.path === '/rows' ? { body: `[${'1,'.repeat(9 * 2 ** 20)}1]` } : undefined));
      const huge = await runCli(['eval', '--benchmark', 'gsm8k', '--config', 'team.yaml'], {
        cwd,
        env,
        timeoutMs: 60_000,
      });
      expect(huge.code).toBe(1);
      expect(huge.stderr).toMatch(
        /^massgen: error: the answer for openai\/gsm8k main\/test rows 0–99 from .* is larger than 16 MiB: refused\n/,
      );
      expect(fake.server.requests).toHaveLength(0);
    } finally {
      datasets.respond(null);
    }
  }, 120_000);

  it('refuses the wrong combinations in one line', async () => {
    const cwd = setup();
    const cases: [string[], string][] = [
      [
        ['--benchmark', 'gsm8k', '--config', 'team.yaml', '--scorer', 'exact'],
        '--benchmark grades by its own rules: drop --scorer',
      ],
      [['--benchmark', 'gsm8k', '--config', 'team.yaml', '--samples', '3'], '--samples goes with --dataset'],
      [
        ['--dataset', 'd.jsonl', '--scorer', 'exact', '--config', 'team.yaml', '--limit', '3'],
        '--limit goes with --benchmark',
      ],
      [
        ['--benchmark', 'gsm8k', '--config', 'team.yaml', '--local-model', 'm.gguf'],
        'use either --config or --local-model',
      ],
      [['--benchmark', 'gsm8k'], 'no team: pass --config FILE, or --local-model PATH'],
      [['--config', 'team.yaml'], 'nothing to evaluate'],
      [['--benchmark', 'mmlu', '--config', 'team.yaml'], "argument 'mmlu' is invalid"],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(['eval', ...args], { cwd, env: envFor() });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toContain(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  }, 60_000);
});

const TINY = path.resolve(REPO_ROOT, '..', 'shared', 'models', 'stories260K.gguf');
const hasTiny = existsSync(TINY);

describe('massgen eval --benchmark on the local model', () => {
  it.skipIf(!hasTiny)(
    `--local-model: three local agents on two GSM8K rows, end to end (accuracy not asserted)${hasTiny ? '' : ' (skipped: ../shared/models/stories260K.gguf not found)'}`,
    async () => {
      const cwd = makeWorkdir();
      const args = ['eval', '--benchmark', 'gsm8k', '--limit', '2', '--local-model', TINY, '--output', 'out'];
      const result = await runCli(args, { cwd, env: envFor(), timeoutMs: 600_000 });
      expect(result.stderr).not.toMatch(/error/i);
      expect(result.code).toBe(0);
      const report = JSON.parse(readFileSync(path.join(cwd, 'out', 'eval-report.json'), 'utf8')) as Report;
      expect(report.summary.questions).toBe(2);
      expect(report.summary.systems.map((s) => s.name)).toEqual([
        'team',
        'single:local_a',
        'single:local_b',
        'single:local_c',
        'majority',
        'oracle',
      ]);
      expect(report.models.map((m) => m.backend)).toEqual(['local', 'local', 'local']);
    },
    620_000,
  );
});
