/**
 * `massgen demo` in the terminal, with the BUILT CLI and no key anywhere: piped (plain lines) and in a
 * real terminal (tmux, the live view). It must tell the whole story — three first answers, Grace's
 * revision resetting counted votes, the votes, Grace presenting — say it is scripted, and finish with a
 * winner, working in a folder of its own (TMPDIR is the test's folder, so nothing is left behind).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_BIN, makeWorkdir, removeTempDirs, runCli, waitFor } from './cli-harness.js';
import { shellQuote as q } from '../support/tmux-cli-wrapper.js';
import { tmuxServer, tmuxVersion } from '../support/tmux-server.js';

afterAll(removeTempDirs);

const NOTE = "(Scripted demo: massgen's built-in demo team wrote this answer; no model was called.)";

describe('massgen demo in the terminal', () => {
  it('piped: answers, a revision that resets votes, votes, the winner presents; logs in a folder of its own', async () => {
    const cwd = makeWorkdir();
    const result = await runCli(['demo'], { cwd, env: { TMPDIR: cwd }, timeoutMs: 90_000 });
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).toContain('massgen demo: a scripted team');
    expect(out).toContain('Question: At what temperature does water boil?');
    expect(out).toContain(
      'ada (demo/scripted-ada), grace (demo/scripted-grace), linus (demo/scripted-linus)',
    );
    for (const answer of ['agent1.1', 'agent2.1', 'agent3.1', 'agent2.2'])
      expect(out).toContain(`new answer ${answer}`);
    expect(out).toMatch(/── agent2\.2 is new: votes of (ada, linus|ada|linus) reset ──/);
    expect(out).toMatch(/\[linus\] ✔ vote → agent2\.2 \(grace\)/);
    expect(out).toMatch(/\[ada\] ✔ vote → agent2\.2 \(grace\)/);
    expect(out).toContain('Winner: grace — votes: grace 3');
    expect(out).toContain('about 1 °C per 300 m.');
    expect(out).toContain(NOTE);
    expect(result.stderr).toContain('massgen: warning: ada, grace, linus: scripted demo agents');
    // Its logs are in a fresh folder, never in the one it was started from.
    const logs = /Logs: (\S+)/.exec(out)?.[1] ?? '';
    expect(path.dirname(logs)).toMatch(new RegExp(`^${cwd}/massgen-demo-\\w+/\\.massgen/massgen_logs$`));
    expect(fs.existsSync(path.join(logs, 'events.jsonl'))).toBe(true);
    expect(fs.readdirSync(cwd).filter((f) => !f.startsWith('massgen-demo-'))).toEqual([]);
    expect(out).toContain('massgen demo --web');
    expect(out).toContain('massgen eval --config @examples/demo/team.yaml --dataset @examples/demo/qa.jsonl');
  }, 120_000);

  it('takes its own question', async () => {
    const cwd = makeWorkdir();
    const result = await runCli(['demo', 'What is 12 plus 30?'], {
      cwd,
      env: { TMPDIR: cwd },
      timeoutMs: 90_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('new answer agent3.1: Quick one: 41.');
    expect(result.stdout).toContain('The answer is 42: 12 + 30 = 42. Check: 42 − 30 = 12.');
  }, 120_000);

  it('refuses what would make it reachable from elsewhere or turn its guard off', async () => {
    const cwd = makeWorkdir();
    for (const args of [
      ['demo', '--web', '--host', '0.0.0.0'],
      ['demo', '--web', '--no-auth'],
      ['demo', 'serve', '--api-key', 'x'],
      ['demo', 'serve', '--web'],
    ]) {
      const result = await runCli(args, { cwd, env: { TMPDIR: cwd } });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toMatch(/^massgen demo: error: .+\n$/);
    }
  });

  it('a temporary folder it cannot write to: one line naming it, and what to do', async () => {
    const cwd = makeWorkdir();
    const missing = path.join(cwd, 'no-such-folder');
    const result = await runCli(['demo'], { cwd, env: { TMPDIR: missing } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `massgen demo: error: cannot make its working folder in ${missing}: ENOENT\nhint: set TMPDIR to a folder you can write to\n`,
    );
  });

  describe.skipIf(tmuxVersion === null)(
    tmuxVersion === null ? 'in a real terminal (skipped: tmux is not on PATH)' : `in ${tmuxVersion}`,
    () => {
      it('the live view ends on the final answer, the winner and the scripted note', async () => {
        const cwd = makeWorkdir();
        const exitFile = path.join(cwd, 'exit_code');
        const tmux = tmuxServer(cwd, { columns: 200, rows: 45 });
        try {
          // A clean environment, as the harness gives every child; the exit code lands in a file.
          const env = `PATH=${q(process.env.PATH ?? '/usr/bin:/bin')} HOME=${q(cwd)} TMPDIR=${q(cwd)} TERM=xterm-256color`;
          const record = `echo $? > ${q(`${exitFile}.part`)} && mv ${q(`${exitFile}.part`)} ${q(exitFile)}`;
          tmux.start(
            'demo',
            `cd ${q(cwd)} && env -i ${env} ${q(process.execPath)} ${q(CLI_BIN)} demo; ${record}; sleep 60`,
          );
          await waitFor(
            () => fs.existsSync(exitFile),
            90_000,
            'massgen demo to end',
            () => tmux.seen('demo'),
          );
          const screen = tmux.screen('demo');
          expect(fs.readFileSync(exitFile, 'utf8').trim(), screen).toBe('0');
          expect(screen).toMatch(/★ Final answer · grace/);
          expect(screen).toContain('about 1 °C per 300 m.');
          expect(screen).toContain('(Scripted demo:');
          expect(screen).toMatch(/✔ Completed in [\d.]+s — winner grace \(agent2\.2\) · votes: grace 3/);
          expect(screen).toContain('demo/scripted-linus');
        } finally {
          tmux.kill();
        }
      }, 120_000);
    },
  );
});
