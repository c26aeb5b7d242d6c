/**
 * docs/eval.md stays true: its session runs as written (the demo team, from a folder outside the clone,
 * `massgen` being this package's built CLI) and prints the table the page shows, its dataset example
 * parses, and every option its table names is one `massgen eval` takes; its benchmark prompts
 * are the ones sent, and its "reproduce a paper's table" commands run as written (on the demo team)
 * against a local stand-in of the datasets server.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCHMARKS, BENCHMARK_NAMES, readDataset } from '../src/eval/index.js';
import { sandboxSupport } from '../src/tools/execute-command/sandbox-support.js';
import { waitFor } from './e2e/cli-harness.js';
import { ROOT, codeBlocks, readDoc, runDocSession } from './support/doc-session.js';

const page = readDoc('eval.md');
const blocks = (lang: string) => codeBlocks(page, lang);

describe('docs/eval.md', () => {
  it('the session runs as written and prints the table shown', () => {
    const session = blocks('bash')[1] as string;
    const shown = blocks('text').find((b) => b.startsWith('Eval:')) as string;
    expect(session).toContain(
      'massgen eval --config @examples/demo/team.yaml --dataset @examples/demo/qa.jsonl',
    );
    expect(session).not.toMatch(/8123|fake-model/);
    runDocSession({ session, prefix: 'massgen-docs-eval-' }, (run, cwd) => {
      expect(run.status, run.stderr).toBe(0);
      const table = shown.split('\n').filter((l) => l.startsWith('  '));
      expect(table).toHaveLength(6);
      for (const line of table) expect(run.stdout).toContain(line);
      const report = JSON.parse(readFileSync(path.join(cwd, 'eval-out', 'eval-report.json'), 'utf8')) as {
        questions: { agents: Record<string, { answer: string } | null>; majority: { agentId: string } }[];
      };
      // Every agent answered first; the hasty one wrongly, and each three-way tie went to Ada.
      expect(report.questions).toHaveLength(10);
      for (const q of report.questions) {
        expect(q.agents.linus?.answer).toMatch(
          /^(Quick one: -?[\d.]+\.|Sydney\.|Saturn\.|Christopher Marlowe\.|K2\.|The Atlantic\.|Toronto\.)$/,
        );
        expect(q.majority.agentId).toBe('ada');
      }
    });
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
    const help = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'massgen.js'), 'eval', '--help'], {
      encoding: 'utf8',
    }).stdout;
    for (const option of options) expect(help, option).toContain(option);
  });

  it('states every benchmark and its exact prompt', () => {
    for (const name of BENCHMARK_NAMES) {
      expect(page, name).toContain(`| \`${name}\``);
      expect(page, name).toContain(BENCHMARKS[name].template);
      expect(page, name).toContain(BENCHMARKS[name].dataset);
    }
  });

  const sandbox = sandboxSupport(process.env.PATH);
  it.skipIf(!sandbox.ok)(
    `"reproduce a paper's table" runs as written against a local datasets server${sandbox.ok ? '' : ` (skipped: ${sandbox.reason})`}`,
    async () => {
      const reproduce = blocks('bash').find((b) => b.startsWith('# GSM8K')) as string;
      expect(reproduce).toContain('massgen eval --benchmark humaneval');
      // The page's `team.yaml` is the reader's own team; here it is the demo team.
      const teamYaml = `cp '${path.join(ROOT, 'examples', 'demo', 'team.yaml')}' team.yaml\n`;
      // Its own process: the session blocks this one's event loop while it runs.
      const server = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          path.join(ROOT, 'src/eval/benchmarks/fake-datasets-server-main.test-support.ts'),
          '3',
        ],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let said = '';
      server.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
      try {
        await waitFor(() => said.includes('fake datasets server on'), 60_000, 'the fake datasets server');
        const url = /on (\S+)/.exec(said)?.[1] as string;
        const session = `export MASSGEN_HF_DATASETS_ENDPOINT=${url} MASSGEN_HF_ENDPOINT=${url}\n${teamYaml}${reproduce}`;
        runDocSession({ session, prefix: 'massgen-docs-bench-' }, (run, cwd) => {
          expect(run.status, run.stderr).toBe(0);
          for (const [dir, dataset] of [
            ['gsm8k-eval', 'openai/gsm8k'],
            ['mmlu-pro-eval', 'TIGER-Lab/MMLU-Pro'],
            ['gpqa-eval', 'Idavidrein/gpqa'],
            ['humaneval-eval', 'openai/openai_humaneval'],
          ]) {
            const report = JSON.parse(
              readFileSync(path.join(cwd, dir as string, 'eval-report.json'), 'utf8'),
            ) as {
              benchmark: { dataset: string; rows: number[] };
              summary: { systems: { name: string }[] };
            };
            expect(report.benchmark.dataset).toBe(dataset);
            expect(report.benchmark.rows).toEqual([0, 1, 2]);
          }
          const gsm8k = JSON.parse(
            readFileSync(path.join(cwd, 'gsm8k-eval', 'eval-report.json'), 'utf8'),
          ) as {
            summary: { systems: { name: string }[] };
          };
          expect(gsm8k.summary.systems.map((s) => s.name)).toContain('best-of-n:ada');
        });
      } finally {
        server.kill('SIGKILL');
      }
    },
    300_000,
  );
});
