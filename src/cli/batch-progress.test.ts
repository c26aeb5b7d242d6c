import { describe, expect, it } from 'vitest';
import type { BatchProgress, BatchResultLine, BatchSummary } from '../batch/index.js';
import { noTokens } from '../batch/index.js';
import { inertText } from '../util/terminal-text.js';
import { runBatchShell } from './batch-command-shell.js';
import { createBatchProgress, formatCount, formatUsd, summaryLines } from './batch-progress.js';

const base: BatchProgress = {
  total: 200,
  done: 120,
  written: 100,
  failed: 2,
  running: 4,
  tokens: 1_234_567,
  costUsd: 0.4321,
  costUnknown: 0,
  elapsedMs: 25_000,
};

const line = (extra: Partial<BatchResultLine> = {}): BatchResultLine => ({
  id: 'q17',
  question: 'q?',
  run_id: 'r',
  status: 'completed',
  answer: 'a',
  winner: 'alpha',
  votes: {},
  tokens: noTokens(),
  cost_usd: 0.0012,
  cost_known: true,
  duration_ms: 1234,
  log_dir: null,
  worker: null,
  error: null,
  finished_at: '',
  ...extra,
});

describe('batch progress', () => {
  it('on a terminal: one bar redrawn in place with done/total, rate, ETA, tokens, cost, failures', () => {
    let out = '';
    let clock = 0;
    const view = createBatchProgress((text) => (out += text), { isTTY: true, width: 100, now: () => clock });
    view.update(base);
    expect(out).toBe(
      `\r[${'█'.repeat(18)}${'░'.repeat(12)}] 120/200  4.00/s  ETA 20s  1.23M tokens  $0.4321  2 failed\x1b[K`,
    );
    out = '';
    view.update({ ...base, done: 121 });
    expect(out).toBe(''); // Redraws at most every 100 ms…
    clock = 150;
    view.update({ ...base, done: 121 });
    expect(out).toContain('121/200');
    out = '';
    view.note('q.jsonl:4: not valid JSON — skipped');
    // …and a note goes above the bar, which is drawn again.
    expect(out.startsWith('\r\x1b[Kmassgen batch: q.jsonl:4: not valid JSON — skipped\n\r[')).toBe(true);
    out = '';
    view.end();
    expect(out).toBe('\r\x1b[K');
  });

  it('elsewhere: a plain line per result, nothing else', () => {
    let out = '';
    const view = createBatchProgress((text) => (out += text), { isTTY: false });
    view.update(base);
    expect(out).toBe('');
    view.update({ ...base, line: line() });
    view.update({
      ...base,
      done: 121,
      line: line({ id: 'q18', status: 'failed', error: { code: 'x', message: 'broke' } }),
    });
    expect(out).toBe('[120/200] q17 completed, winner alpha, 1.2s, $0.0012\n[121/200] q18 failed: broke\n');
  });

  it('shows what it quotes from runs inert, in both layouts', () => {
    let out = '';
    const plain = createBatchProgress((text) => (out += text), { isTTY: false });
    plain.update({
      ...base,
      line: line({
        id: 'q\x1b[2J',
        status: 'failed',
        error: { code: 'x', message: 'boom\x1b]52;c;eA==\x07' },
      }),
    });
    expect(out).toBe('[120/200] q␛[2J failed: boom␛]52;c;eA==␇\n');
    out = '';
    const bar = createBatchProgress((text) => (out += text), { isTTY: true });
    bar.note('in.jsonl:3: \x1b]0;PWNED\x07 skipped');
    expect(out).toBe('massgen batch: in.jsonl:3: ␛]0;PWNED␇ skipped\n');
  });

  it("on a terminal the CLI's inert scrubbing touches only what is quoted, never the bar's own controls", async () => {
    let err = '';
    const io = {
      cwd: '/',
      env: {},
      stdout: () => undefined,
      stderr: (text: string) => void (err += text),
      stderrIsTTY: true,
      // As the CLI's subcommands scrub: secrets masked, then made inert.
      scrub: (text: string) => inertText(text.replaceAll('sk-hidden', '***')),
    };
    await runBatchShell(io, async ({ view }) => {
      view.update(base);
      view.note('q9: \x1b]0;PWNED\x07 sk-hidden');
      view.end();
      return 0;
    });
    expect(err).toContain('\r[');
    expect(err).toContain('\x1b[K');
    expect(err).not.toContain('␍');
    expect(err).toContain('massgen batch: q9: ␛]0;PWNED␇ ***\n');
  });

  it('a cost that is not known reads "cost unknown", never $0.0000; a partly known one "$… + unknown"', () => {
    let out = '';
    const view = createBatchProgress((text) => (out += text), { isTTY: false });
    view.update({ ...base, line: line({ cost_usd: 0, cost_known: false }) });
    view.update({ ...base, line: line({ id: 'q18', cost_usd: 0.002, cost_known: false }) });
    expect(out).toBe(
      '[120/200] q17 completed, winner alpha, 1.2s, cost unknown\n[120/200] q18 completed, winner alpha, 1.2s, $0.0020 + unknown\n',
    );
    const summary: BatchSummary = {
      ...base,
      failed: 0,
      costUsd: 0,
      costUnknown: 120,
      output: '/tmp/r.jsonl',
      malformed: [],
      resumed: 0,
      notRun: 0,
      stoppedBy: null,
    };
    expect(summaryLines(summary)).toMatch(/1\.23M tokens, cost unknown\n/);
    expect(summaryLines({ ...summary, costUsd: 0.5, costUnknown: 3 })).toMatch(
      /tokens, \$0\.5000 \+ unknown\n/,
    );
    out = '';
    const bar = createBatchProgress((text) => (out += text), { isTTY: true, width: 100, now: () => 0 });
    bar.update({ ...base, costUsd: 0, costUnknown: 4 });
    expect(out).toContain('1.23M tokens  cost unknown  2 failed');
  });

  it('the summary says what is left and how to go on', () => {
    const summary: BatchSummary = {
      ...base,
      output: '/tmp/r.jsonl',
      malformed: [],
      resumed: 20,
      notRun: 80,
      stoppedBy: 'interrupt',
    };
    expect(summaryLines(summary)).toBe(
      'Batch: 118 of 200 answered (118 completed, 2 failed, 20 from an earlier run) in 25s — 4.00 runs/s, 1.23M tokens, $0.4321\n' +
        'Results: /tmp/r.jsonl\n' +
        'Interrupted: 80 not answered yet — run the same command again to resume.\n',
    );
    expect(summaryLines({ ...summary, stoppedBy: 'cost' })).toContain(
      'Stopped at the cost limit: 80 not run',
    );
    // A question whose job timed out has a line, but it did not answer.
    const timedOut: BatchSummary = {
      ...base,
      total: 1,
      done: 1,
      written: 1,
      failed: 1,
      costUsd: 0,
      output: '/tmp/r.jsonl',
      malformed: [],
      resumed: 0,
      notRun: 0,
      stoppedBy: null,
    };
    expect(summaryLines(timedOut)).toMatch(/^Batch: 0 of 1 answered \(0 completed, 1 failed\) in /);
    expect(formatCount(950)).toBe('950');
    expect(formatCount(12_345)).toBe('12.3k');
    expect(formatUsd(12.345)).toBe('$12.35');
  });
});
