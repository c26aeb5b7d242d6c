import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  appendTurn,
  createSession,
  createSessionRunner,
  loadSession,
  sessionsRoot,
} from '../../app/sessions.js';
import { startTurn } from '../../logging/session-store.js';
import { fixedClock } from '../../testing/fixed-clock.js';
import { finalOf, scriptedTeam, userText, workdir } from '../../app/sessions.test-support.js';
import { fakeIo } from './interactive.test-support.js';
import { PROMPT } from './line-input.js';
import { plainTurnView } from './run-interactive.js';
import { listSessionsCommand, runSessionCommand } from './session-commands.js';

const turn = (question: string, finishedAt: string) => ({
  question,
  answer: `answer to ${question}`,
  winnerId: 'alice',
  winnerLabel: 'agent1.1',
  status: 'completed' as const,
  exitCode: 0,
  startedAt: finishedAt,
  finishedAt,
  durationMs: 1000,
  usage: {},
  costUsd: {},
  logDir: null,
});

/** A stored session with `questions` answered, made through the real runner. */
async function storedSession(cwd: string, questions: string[], configSource?: string) {
  const runner = createSessionRunner({
    ...scriptedTeam(),
    cwd,
    env: {},
    ...(configSource ? { configSource } : {}),
  });
  for (const q of questions) await runner.runTurn(q);
  return loadSession(sessionsRoot(cwd), runner.sessionId);
}

describe('listSessionsCommand', () => {
  it('prints a table newest first, then the unreadable folders', async () => {
    const cwd = workdir();
    const root = sessionsRoot(cwd);
    const older = await createSession(root, {
      configSource: 'x',
      id: 'session_20261120_090000_aaaa',
      clock: fixedClock('2026-11-20T08:00:00.000Z'),
    });
    await appendTurn(older, turn('Why is the sky blue?', '2026-11-20T09:00:00.000Z'));
    const newer = await createSession(root, {
      configSource: 'x',
      id: 'session_20261121_090000_bbbb',
      clock: fixedClock('2026-11-21T08:00:00.000Z'),
    });
    await appendTurn(newer, turn('What is 2+2?', '2026-11-21T09:00:00.000Z'));
    await appendTurn(newer, turn('And 3+3?', '2026-11-21T09:05:00.000Z'));
    fs.mkdirSync(path.join(root, 'session_broken'));
    const out: string[] = [];

    expect(await listSessionsCommand({ stdout: (t) => out.push(t), cwd })).toBe(0);

    const lines = out.join('').split('\n');
    expect(lines[0]).toMatch(/^ID {2,}UPDATED {2,}TURNS {2}FIRST QUESTION$/);
    expect(lines[1]).toMatch(
      /^session_20261121_090000_bbbb {2}\d{4}-\d\d-\d\d \d\d:\d\d {2,}2 {2}What is 2\+2\?$/,
    );
    expect(lines[2]).toMatch(
      /^session_20261120_090000_aaaa {2}\d{4}-\d\d-\d\d \d\d:\d\d {2,}1 {2}Why is the sky blue\?$/,
    );
    expect(lines[3]).toBe('');
    expect(lines[4]).toBe('Skipped 1 unreadable session folder:');
    expect(lines[5]).toBe(
      `  ${path.join(root, 'session_broken', 'session.json')}: session file ${path.join(root, 'session_broken', 'session.json')} is unreadable: missing`,
    );
  });

  it('--json prints sessions and problems; no sessions is said plainly', async () => {
    const cwd = workdir();
    const out: string[] = [];
    await listSessionsCommand({ stdout: (t) => out.push(t), cwd });
    expect(out.join('')).toBe(`No sessions in ${path.join('.massgen', 'sessions')}.\n`);

    await storedSession(cwd, ['q1']);
    out.length = 0;
    await listSessionsCommand({ stdout: (t) => out.push(t), cwd }, { json: true });
    const parsed = JSON.parse(out.join('')) as {
      sessions: { turnCount: number; firstQuestion: string }[];
      problems: unknown[];
    };
    expect(parsed.sessions).toHaveLength(1);
    expect(parsed.sessions[0]).toMatchObject({ turnCount: 1, firstQuestion: 'q1' });
    expect(parsed.problems).toEqual([]);
  });
});

describe('runSessionCommand', () => {
  it('--continue resumes the latest session: prints its history, and the next question sees it', async () => {
    const cwd = workdir();
    await storedSession(cwd, ['old one']);
    const latest = await storedSession(cwd, ['Capital of France?', 'And of Spain?']);
    const team = scriptedTeam();
    const term = fakeIo(cwd);

    const done = runSessionCommand({
      io: term.io,
      ...team,
      continueLatest: true,
      createView: plainTurnView(),
    });
    term.type('And of Italy?', '/quit');
    expect(await done).toBe(0);

    expect(term.stdout).toContain(`Session: ${latest.id} (resumed, 2 earlier turns)`);
    expect(term.stdout).toContain(
      `Earlier turns:\n  1. Capital of France? → alice: ${finalOf('Capital of France?')}\n  2. And of Spain?`,
    );
    const request = team.backends.alice?.requests[0];
    expect(request && userText(request)).toContain('User: Capital of France?');
    expect(request && userText(request)).toContain('User: And of Spain?');
    expect(request && userText(request)).not.toContain('old one');
    expect((await loadSession(sessionsRoot(cwd), latest.id)).turns.map((t) => t.question)).toEqual([
      'Capital of France?',
      'And of Spain?',
      'And of Italy?',
    ]);
  });

  it('--session-id ID with a question runs it as the next turn and exits with its code', async () => {
    const cwd = workdir();
    const session = await storedSession(cwd, ['first']);
    await storedSession(cwd, ['a newer session']);
    const term = fakeIo(cwd);

    const code = await runSessionCommand({
      io: term.io,
      ...scriptedTeam(),
      sessionId: session.id,
      question: 'second',
      createView: plainTurnView(),
    });

    expect(code).toBe(0);
    expect(term.stdout).not.toContain(PROMPT);
    expect(term.stdout).toContain(`Continuing session ${session.id} (1 earlier turn(s)):`);
    expect(term.stdout).toContain(finalOf('second'));
    expect(term.stdout).toContain(`Session ${session.id}, turn 2:`);
    const stored = await loadSession(sessionsRoot(cwd), session.id);
    expect(stored.history.map((h) => h.question)).toEqual(['first', 'second']);
    expect(term.interruptListeners).toBe(0);
  });

  it('--continue of a turn still running in another process says so, and does not say it is picked up', async () => {
    const cwd = workdir();
    const session = await storedSession(cwd, ['first']);
    // A turn recorded at its start by a process that is alive (this one): it is running, not cut off.
    await startTurn(session, {
      question: 'long one',
      startedAt: '2026-11-29T07:00:00.000Z',
      logDir: path.join(cwd, 'log_20261129_070000_000001'),
      process: { pid: process.pid, hostname: os.hostname() },
    });
    const term = fakeIo(cwd);

    const code = await runSessionCommand({
      io: term.io,
      ...scriptedTeam(),
      continueLatest: true,
      question: 'meanwhile',
      createView: plainTurnView(),
    });

    expect(code).toBe(0);
    expect(term.stdout).toContain(
      `Turn 2 of session ${session.id} is still running in process ${process.pid}; its subagents are left to it`,
    );
    expect(term.stdout).not.toContain('did not finish');
  });

  it('a one-question run that fails exits with the run’s code', async () => {
    const cwd = workdir();
    const session = await storedSession(cwd, ['first']);
    const term = fakeIo(cwd);
    const code = await runSessionCommand({
      io: term.io,
      ...scriptedTeam(),
      sessionId: session.id,
      question: 'now FAIL',
      createView: plainTurnView(),
    });
    expect(code).toBe(2);
    expect(term.stderr).toMatch(/run failed/);
  });

  it('uses the session’s config file when no config is given', async () => {
    const cwd = workdir();
    const team = scriptedTeam();
    const file = path.join(cwd, 'team.yaml');
    fs.writeFileSync(file, stringify(team.config));
    const runner = createSessionRunner({ config: 'team.yaml', agents: team.agents, cwd, env: {} });
    await runner.runTurn('first');
    expect(runner.configSource).toBe(file);
    const term = fakeIo(cwd);

    const code = await runSessionCommand({
      io: term.io,
      agents: scriptedTeam().agents,
      continueLatest: true,
      question: 'second',
      createView: plainTurnView(),
    });

    expect(code).toBe(0);
    expect((await loadSession(sessionsRoot(cwd), runner.sessionId)).turns).toHaveLength(2);
  });

  it('usage errors: unknown id (listing the known ones), nothing to continue, both flags, no config', async () => {
    const cwd = workdir();
    const view = plainTurnView();
    const run = async (options: Partial<Parameters<typeof runSessionCommand>[0]>) => {
      const term = fakeIo(cwd);
      const code = await runSessionCommand({ io: term.io, ...scriptedTeam(), createView: view, ...options });
      return { code, stderr: term.stderr };
    };

    expect(await run({ continueLatest: true })).toEqual({
      code: 1,
      stderr: expect.stringMatching(/^massgen: error: no session to continue in .*\nhint: /) as unknown,
    });
    const session = await storedSession(cwd, ['q'], 'team from a flag');
    const unknown = await run({ sessionId: 'session_nope' });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      `massgen: error: unknown session "session_nope"; known sessions: ${session.id}\n`,
    );
    expect(unknown.stderr).toContain('hint: massgen --list-sessions');
    expect((await run({ sessionId: session.id, continueLatest: true })).stderr).toContain(
      'use either --session-id or --continue, not both',
    );
    const noConfig = await run({ sessionId: session.id, config: undefined });
    expect(noConfig.code).toBe(1);
    expect(noConfig.stderr).toContain("the session's config (team from a flag) is not a file that exists");
  });
});
