/**
 * docs/eval.md stays true: its session runs as written (the demo team, from a folder outside the clone,
 * `massgen` being this package's built CLI) and prints the table the page shows, its dataset example
 * parses, and every option its table names is one `massgen eval` takes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDataset } from '../src/eval/index.js';
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
});
