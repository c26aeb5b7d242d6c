/**
 * Interactive mode and sessions through the BUILT CLI (`node bin/massgen.js`) with piped stdin,
 * against the fake OpenAI-compatible server: `--config FILE` with no question starts the prompt,
 * `--list-sessions`, `--continue` and `--session-id` resume a session.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agentEntry,
  convergingHandler,
  finalAnswerOf,
  linesOf,
  listFiles,
  makeWorkdir,
  persona,
  runCli,
  startCli,
  writeConfig,
  useFakeServer,
} from './cli-harness.js';
import type { FakeChatRequestBody } from '../../src/testing/fake-openai-server.js';

const fake = useFakeServer();

const IDS = ['alpha', 'beta'] as const;
const Q1 = 'What is 6 times 7?';
const Q2 = 'And what is 6 times 8?';
const SESSION_ID = /session_\d{8}_\d{6}_[0-9a-f]{4}/;

function teamWorkdir(): string {
  const cwd = makeWorkdir();
  writeConfig(cwd, {
    agents: IDS.map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
    // Bounds for a hung run only: a busy machine takes seconds where an idle one takes milliseconds.
    timeout_settings: { agent_turn_timeout_seconds: 60, orchestrator_timeout_seconds: 120 },
  });
  return cwd;
}

/** The built CLI with stdin a pipe the test types into. */
function startInteractive(args: readonly string[], cwd: string) {
  const cli = startCli(args, { cwd, stdin: 'open' });
  return Object.assign(cli, {
    type: (...lines: string[]) => cli.child.stdin?.write(lines.map((l) => `${l}\n`).join('')),
    end: () => cli.child.stdin?.end(),
  });
}

const sessionsDir = (cwd: string): string => path.join(cwd, '.massgen', 'sessions');
const sessionIds = (cwd: string): string[] =>
  fs.existsSync(sessionsDir(cwd)) ? fs.readdirSync(sessionsDir(cwd)).sort() : [];
const bodyText = (body: FakeChatRequestBody | null): string => JSON.stringify(body?.messages ?? []);

describe('interactive mode (built CLI, piped stdin)', () => {
  it('bare `massgen` opens a session when ./.massgen/config.yaml exists (in a trusted folder)', async () => {
    const cwd = teamWorkdir();
    fs.mkdirSync(path.join(cwd, '.massgen'), { recursive: true });
    fs.renameSync(path.join(cwd, 'config.yaml'), path.join(cwd, '.massgen', 'config.yaml'));
    // Without a terminal a project config is used only in a folder the user trusted.
    expect((await runCli(['trust'], { cwd })).code).toBe(0);
    const cli = startInteractive([], cwd);
    cli.type('/status', '/quit');
    const result = await cli.result;
    expect(result.stderr).toContain('massgen: using project config ./.massgen/config.yaml (trusted)\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /MassGen interactive — 2 agents: alpha \(chatcompletion\/model-alpha\), beta/,
    );
    expect(result.stdout).toContain('Turns: 0');
  });

  it('--config FILE without a question: a prompt; each line is a turn; the second turn sees the first', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = teamWorkdir();
    const cli = startInteractive(['--config', 'config.yaml', '--no-display'], cwd);
    cli.type(Q1, Q2, '/status', '/history', '/quit');
    const result = await cli.result;

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain(
      'MassGen interactive — 2 agents: alpha (chatcompletion/model-alpha), beta (chatcompletion/model-beta)',
    );
    expect(out).toMatch(new RegExp(`Session: ${SESSION_ID.source} \\(new\\)`));
    expect(out).toContain('/help');
    expect(out).toContain(`massgen> ${Q1}`);
    expect(out.split('=== Final answer (alpha) ===')).toHaveLength(3);
    expect(out).toContain('Turns: 2');
    expect(out).toContain(`  1. ${Q1} → alpha: ${finalAnswerOf('alpha')}`);
    expect(out).toContain(`  2. ${Q2} → alpha: ${finalAnswerOf('alpha')}`);

    const second = fake.server.requests.filter((r) => bodyText(r.body).includes(Q2));
    expect(second.length).toBeGreaterThan(0);
    for (const request of second) {
      expect(bodyText(request.body)).toContain(`User: ${Q1}`);
      expect(bodyText(request.body)).toContain(`Final answer: ${finalAnswerOf('alpha')}`);
    }

    const [id] = sessionIds(cwd);
    expect(id).toMatch(SESSION_ID);
    expect(listFiles(path.join(sessionsDir(cwd), id ?? ''))).toEqual([
      'session.json',
      'summary.md',
      path.join('turn_1', 'answer.txt'),
      path.join('turn_1', 'metadata.json'),
      path.join('turn_2', 'answer.txt'),
      path.join('turn_2', 'metadata.json'),
    ]);
  });

  it('end of input (Ctrl-D) exits 0; an unknown command prints the help', async () => {
    const cwd = teamWorkdir();
    const cli = startInteractive(['--config', 'config.yaml', '--no-display'], cwd);
    cli.type('/nope', '');
    cli.end();
    const result = await cli.result;
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('massgen: unknown command /nope — the commands are:\n');
    expect(result.stdout).toContain('/quit, /exit, /q');
    expect(fake.server.requests).toHaveLength(0);
    expect(sessionIds(cwd)).toEqual([]);
  });

  it('Ctrl-C (SIGINT) during a turn cancels only that turn; at the prompt it exits 130', async () => {
    fake.server.setHandler(() => ({ hang: true, sendHeaders: true }));
    const cwd = teamWorkdir();
    const cli = startInteractive(['--config', 'config.yaml', '--no-display'], cwd);
    cli.type('hang, please');
    await cli.until(() => fake.server.requests.length === 2, 'both agents to wait on the model');
    cli.child.kill('SIGINT');
    await cli.until(() => cli.stdout.split('massgen> ').length === 3, 'the prompt to return');
    expect(cli.stderr).toContain('massgen: cancelling this turn');
    cli.child.kill('SIGINT');
    const result = await cli.result;

    expect(result.code).toBe(130);
    const [id] = sessionIds(cwd);
    const meta = JSON.parse(
      fs.readFileSync(path.join(sessionsDir(cwd), id ?? '', 'turn_1', 'metadata.json'), 'utf8'),
    ) as { status: string; log_dir: string };
    expect(meta.status).toBe('cancelled');
    expect(fs.existsSync(path.join(meta.log_dir, 'status.json'))).toBe(true);
  });

  it('--list-sessions, --continue and --session-id resume a session', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = teamWorkdir();
    const first = startInteractive(['--config', 'config.yaml', '--no-display'], cwd);
    first.type(Q1, Q2, '/quit');
    expect((await first.result).code).toBe(0);
    const [id] = sessionIds(cwd);

    // A corrupt folder is listed as a problem, never fatal.
    fs.mkdirSync(path.join(sessionsDir(cwd), 'session_broken'));
    const listed = await runCli(['--list-sessions'], { cwd });
    expect(listed.code).toBe(0);
    const lines = linesOf(listed.stdout);
    expect(lines[0]).toMatch(/^ID\s+UPDATED\s+TURNS\s+FIRST QUESTION$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${id}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+2\\s+${Q1.replace(/\?/g, '\\?')}$`),
    );
    expect(listed.stdout).toContain('Skipped 1 unreadable session folder:');
    expect(listed.stdout).toContain('session_broken');

    // --continue: the prompt, with the history so far.
    fake.server.reset();
    fake.server.setHandler(convergingHandler);
    const resumed = startInteractive(['--config', 'config.yaml', '--no-display', '--continue'], cwd);
    resumed.type('/history', '/quit');
    const resumedResult = await resumed.result;
    expect(resumedResult.code).toBe(0);
    expect(resumedResult.stdout).toContain(`Session: ${id} (resumed, 2 earlier turns)`);
    expect(resumedResult.stdout).toContain(`1. ${Q1} → alpha`);

    // --session-id ID "question": one more turn, then exit.
    const Q3 = 'And 6 times 9?';
    const one = await runCli(['--config', 'config.yaml', '--no-display', '--session-id', id ?? '', Q3], {
      cwd,
    });
    expect(one.code).toBe(0);
    expect(one.stdout).toContain(`Session ${id}, turn 3:`);
    const third = fake.server.requests.filter((r) => bodyText(r.body).includes(Q3));
    expect(third.length).toBeGreaterThan(0);
    for (const request of third) {
      expect(bodyText(request.body)).toContain(`User: ${Q1}`);
      expect(bodyText(request.body)).toContain(`User: ${Q2}`);
    }
    expect(
      fs
        .readdirSync(path.join(sessionsDir(cwd), id ?? ''))
        .filter((n) => n.startsWith('turn_'))
        .sort(),
    ).toEqual(['turn_1', 'turn_2', 'turn_3']);
  });

  it('--session-id with an unknown id exits 1 and names the known sessions', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = teamWorkdir();
    const first = startInteractive(['--config', 'config.yaml', '--no-display'], cwd);
    first.type(Q1, '/quit');
    expect((await first.result).code).toBe(0);
    const [id] = sessionIds(cwd);

    const result = await runCli(['--config', 'config.yaml', '--session-id', 'session_nope'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`massgen: error: unknown session "session_nope"; known sessions: ${id}`);
    const none = await runCli(['--config', 'config.yaml', '--continue', 'q'], { cwd: makeWorkdir() });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('massgen: error: no session to continue');
  });
});
