import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../testing/fixed-clock.js';
import { listFiles, tempDir } from './log-writer.test-support.js';
import {
  appendTurn,
  createSession,
  finishTurn,
  startTurn,
  latestSession,
  listSessions,
  loadSession,
  newSessionId,
  SessionCorruptError,
  SessionNotFoundError,
  sessionsRoot,
  type TurnRecord,
} from './session-store.js';

const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  reasoningTokens: 0,
  cachedInputTokens: 0,
});

function turn(question: string, answer: string | null, extra: Partial<TurnRecord> = {}): TurnRecord {
  return {
    question,
    answer,
    winnerId: answer === null ? null : 'alice',
    winnerLabel: answer === null ? null : 'agent1.1',
    status: answer === null ? 'failed' : 'completed',
    exitCode: answer === null ? 2 : 0,
    startedAt: '2026-11-22T10:15:00.000Z',
    finishedAt: '2026-11-22T10:15:04.250Z',
    durationMs: 4250,
    usage: { alice: usage(100, 10), bob: usage(50, 5) },
    costUsd: { alice: 0.0001, bob: 0 },
    logDir: '/tmp/logs/log_1',
    runId: 'run_1',
    ...(answer === null ? { error: { code: 'run_failed', message: 'All agents failed' } } : {}),
    ...extra,
  };
}

// Sessions made here were created before any of their turns finished, whatever today's date is.
const meta = {
  clock: fixedClock('2026-11-22T08:00:00.000Z'),
  configSource: '/work/team.yaml',
  agents: [
    { id: 'alice', backend: 'openai', model: 'gpt-a' },
    { id: 'bob', backend: 'claude', model: 'claude-b' },
  ],
};

const readJson = (file: string): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;

describe('session ids and paths', () => {
  it('looks like session_<date>_<time>_<4 hex> and lives under .massgen/sessions', () => {
    expect(newSessionId(new Date(2026, 10, 22, 10, 15, 0))).toMatch(/^session_20261122_101500_[0-9a-f]{4}$/);
    expect(sessionsRoot('/work/project')).toBe(path.join('/work/project', '.massgen', 'sessions'));
  });
});

describe('startTurn / finishTurn: a turn is in the store from its start', () => {
  it('a started turn is listed as unfinished with its log folder; finishing it fills the same folder', async () => {
    const root = path.join(tempDir(), 'sessions');
    const session = await createSession(root, meta);
    const started = await startTurn(session, {
      question: 'Long job?',
      startedAt: '2026-11-22T10:15:00.000Z',
      logDir: '/tmp/logs/log_9',
    });
    expect(started.index).toBe(1);
    // What a process killed here leaves: the turn, unfinished, found by a later load.
    const killed = await loadSession(root, session.id);
    expect(killed.turns).toHaveLength(1);
    expect(killed.turns[0]).toMatchObject({
      index: 1,
      question: 'Long job?',
      answer: null,
      unfinished: true,
      status: 'failed',
      logDir: '/tmp/logs/log_9',
      error: { code: 'unfinished' },
    });
    expect(killed.history).toEqual([]);
    expect((await listSessions(root)).sessions[0]?.turnCount).toBe(1);

    const finished = await finishTurn(started.session, started.index, turn('Long job?', 'Done.'));
    expect(finished.turns.map((t) => [t.index, t.unfinished, t.answer])).toEqual([[1, false, 'Done.']]);
    expect(listFiles(session.dir)).toEqual([
      'session.json',
      'summary.md',
      path.join('turn_1', 'answer.txt'),
      path.join('turn_1', 'metadata.json'),
    ]);
    // A turn appended after it takes the next number.
    expect((await appendTurn(finished, turn('Next?', 'Yes.'))).turns.map((t) => t.index)).toEqual([1, 2]);
  });
});

describe('createSession / appendTurn', () => {
  it('creates the folder with session.json and summary.md, then one folder per turn', async () => {
    const root = path.join(tempDir(), 'sessions');
    const session = await createSession(root, meta);

    expect(session.id).toMatch(/^session_\d{8}_\d{6}_[0-9a-f]{4}$/);
    expect(session.dir).toBe(path.join(root, session.id));
    expect(session.turns).toEqual([]);
    expect(listFiles(session.dir)).toEqual(['session.json', 'summary.md']);
    expect(readJson(path.join(session.dir, 'session.json'))).toMatchObject({
      id: session.id,
      config_source: '/work/team.yaml',
      turn_count: 0,
      agents: meta.agents,
    });

    const first = await appendTurn(session, turn('What is 2+2?', '2 + 2 = 4'));
    const second = await appendTurn(first, turn('And times 3?', null));

    expect(listFiles(session.dir)).toEqual([
      'session.json',
      'summary.md',
      path.join('turn_1', 'answer.txt'),
      path.join('turn_1', 'metadata.json'),
      path.join('turn_2', 'metadata.json'),
    ]);
    expect(fs.readFileSync(path.join(session.dir, 'turn_1', 'answer.txt'), 'utf8')).toBe('2 + 2 = 4');
    expect(readJson(path.join(session.dir, 'turn_1', 'metadata.json'))).toEqual({
      turn: 1,
      question: 'What is 2+2?',
      status: 'completed',
      exit_code: 0,
      winner: 'alice',
      winner_label: 'agent1.1',
      answer_file: 'answer.txt',
      run_id: 'run_1',
      started_at: '2026-11-22T10:15:00.000Z',
      finished_at: '2026-11-22T10:15:04.250Z',
      duration_seconds: 4.25,
      agents: {
        alice: {
          usage: { input_tokens: 100, output_tokens: 10, reasoning_tokens: 0, cached_input_tokens: 0 },
          cost_usd: 0.0001,
        },
        bob: {
          usage: { input_tokens: 50, output_tokens: 5, reasoning_tokens: 0, cached_input_tokens: 0 },
          cost_usd: 0,
        },
      },
      totals: {
        usage: { input_tokens: 150, output_tokens: 15, reasoning_tokens: 0, cached_input_tokens: 0 },
        cost_usd: 0.0001,
      },
      log_dir: '/tmp/logs/log_1',
      error: null,
      workspace: null,
      unfinished: false,
      process: null,
    });
    expect(readJson(path.join(session.dir, 'turn_2', 'metadata.json'))).toMatchObject({
      turn: 2,
      status: 'failed',
      exit_code: 2,
      winner: null,
      answer_file: null,
      error: { code: 'run_failed', message: 'All agents failed' },
    });
    expect(readJson(path.join(session.dir, 'session.json'))).toMatchObject({
      turn_count: 2,
      updated_at: '2026-11-22T10:15:04.250Z',
    });

    // The returned session is what is on disk; failed turns are kept but are not history.
    expect(second.turns.map((t) => [t.index, t.status, t.answer])).toEqual([
      [1, 'completed', '2 + 2 = 4'],
      [2, 'failed', null],
    ]);
    expect(second.history).toEqual([{ question: 'What is 2+2?', answer: '2 + 2 = 4' }]);

    const summary = fs.readFileSync(path.join(session.dir, 'summary.md'), 'utf8');
    expect(summary).toContain(`# MassGen session ${session.id}`);
    expect(summary).toContain('## Turn 1');
    expect(summary).toContain('> What is 2+2?');
    expect(summary).toContain('**Winner:** alice (agent1.1) — completed, exit code 0');
    expect(summary).toContain('> 2 + 2 = 4');
    expect(summary).toContain('## Turn 2');
    expect(summary).toContain('no winner — failed, exit code 2 — All agents failed');
    expect(summary).toContain('_(no answer)_');
  });

  it('leaves no temporary files behind', async () => {
    const root = tempDir();
    const session = await createSession(root, meta);
    for (let i = 1; i <= 3; i++) await appendTurn(session, turn(`q${i}`, `a${i}`));
    const all = [...fs.readdirSync(root), ...listFiles(root)];
    expect(all.filter((name) => name.includes('.tmp-'))).toEqual([]);
    expect((await loadSession(root, session.id)).turns.map((t) => t.index)).toEqual([1, 2, 3]);
  });

  it('copies the winner workspace into turn_<n>/workspace when there is one', async () => {
    const root = tempDir();
    const workspace = path.join(tempDir(), 'ws');
    fs.mkdirSync(path.join(workspace, 'src'), { recursive: true });
    fs.writeFileSync(path.join(workspace, 'src', 'main.py'), 'print(4)\n');
    const session = await createSession(root, meta);
    const stored = await appendTurn(session, turn('q', 'a', { workspaceDir: workspace }));
    const withoutWorkspace = await appendTurn(
      stored,
      turn('q2', 'a2', { workspaceDir: path.join(root, 'nope') }),
    );

    expect(fs.readFileSync(path.join(session.dir, 'turn_1', 'workspace', 'src', 'main.py'), 'utf8')).toBe(
      'print(4)\n',
    );
    expect(withoutWorkspace.turns.map((t) => t.workspaceDir)).toEqual([
      path.join(session.dir, 'turn_1', 'workspace'),
      null,
    ]);
  });

  it('takes the next free turn number when another writer added turns meanwhile', async () => {
    const root = tempDir();
    const session = await createSession(root, meta);
    await appendTurn(session, turn('q1', 'a1'));
    // A stale handle (no turns) still appends after the existing turn.
    const again = await appendTurn(session, turn('q2', 'a2'));
    expect(again.turns.map((t) => t.question)).toEqual(['q1', 'q2']);
  });

  it('refuses an explicit id that is taken', async () => {
    const root = tempDir();
    const first = await createSession(root, meta);
    await expect(createSession(root, { ...meta, id: first.id })).rejects.toThrow(/already exists/);
    expect(fs.readdirSync(root)).toEqual([first.id]);
  });
});

describe('listSessions / loadSession / latestSession', () => {
  it('lists newest first with turn counts and first questions; reports corrupt folders and skips them', async () => {
    const root = tempDir();
    const older = await createSession(root, { ...meta, id: 'session_20261122_090000_aaaa' });
    await appendTurn(older, turn('Older question', 'x', { finishedAt: '2026-11-22T09:00:05.000Z' }));
    const newer = await createSession(root, { ...meta, id: 'session_20261122_100000_bbbb' });
    await appendTurn(newer, turn('Newer question', 'y', { finishedAt: '2026-11-22T10:00:05.000Z' }));
    await appendTurn(newer, turn('Follow-up', 'z', { finishedAt: '2026-11-22T10:01:05.000Z' }));
    const empty = await createSession(root, {
      ...meta,
      id: 'session_20261121_080000_cccc',
      createdAt: new Date('2026-11-21T08:00:00.000Z'),
    });

    const bad = path.join(root, 'session_20261122_110000_dddd');
    fs.mkdirSync(bad);
    fs.writeFileSync(path.join(bad, 'session.json'), '{ not json');
    const badTurn = path.join(root, 'session_20261122_120000_eeee');
    fs.cpSync(older.dir, badTurn, { recursive: true });
    fs.writeFileSync(path.join(badTurn, 'turn_1', 'metadata.json'), JSON.stringify({ turn: 1 }));
    fs.mkdirSync(path.join(root, '.tmp-session-1-abc')); // an unfinished creation: ignored silently
    fs.writeFileSync(path.join(root, 'notes.txt'), 'not a session');

    const { sessions, problems } = await listSessions(root);

    expect(sessions.map((s) => [s.id, s.turnCount, s.firstQuestion])).toEqual([
      [newer.id, 2, 'Newer question'],
      [older.id, 1, 'Older question'],
      [empty.id, 0, null],
    ]);
    expect(sessions[0]?.updatedAt).toBe('2026-11-22T10:01:05.000Z');
    expect(problems).toHaveLength(2);
    expect(problems[0]?.path).toBe(path.join(bad, 'session.json'));
    expect(problems[0]?.message).toMatch(/invalid JSON/);
    expect(problems[1]?.path).toBe(path.join(badTurn, 'turn_1', 'metadata.json'));
    expect(problems[1]?.message).toMatch(/question/);

    const latest = await latestSession(root);
    expect(latest?.id).toBe(newer.id);
    expect(latest?.history).toEqual([
      { question: 'Newer question', answer: 'y' },
      { question: 'Follow-up', answer: 'z' },
    ]);
  });

  it('loads a session with its turns and history', async () => {
    const root = tempDir();
    const created = await createSession(root, meta);
    await appendTurn(created, turn('q1', 'first answer'));
    await appendTurn(created, turn('q2', null, { status: 'cancelled', exitCode: 130 }));
    await appendTurn(created, turn('q3', 'third answer'));

    const session = await loadSession(root, created.id);

    expect(session).toMatchObject({ id: created.id, dir: created.dir, configSource: '/work/team.yaml' });
    expect(session.agents).toEqual(meta.agents);
    expect(session.turns.map((t) => [t.question, t.status, t.exitCode])).toEqual([
      ['q1', 'completed', 0],
      ['q2', 'cancelled', 130],
      ['q3', 'completed', 0],
    ]);
    expect(session.turns[0]).toMatchObject({
      winnerId: 'alice',
      winnerLabel: 'agent1.1',
      durationMs: 4250,
      usage: { alice: usage(100, 10), bob: usage(50, 5) },
      costUsd: { alice: 0.0001, bob: 0 },
      logDir: '/tmp/logs/log_1',
      runId: 'run_1',
      error: null,
    });
    expect(session.history).toEqual([
      { question: 'q1', answer: 'first answer' },
      { question: 'q3', answer: 'third answer' },
    ]);
  });

  it('an unknown id is a clear error listing the known ones', async () => {
    const root = tempDir();
    const a = await createSession(root, { ...meta, id: 'session_20261122_090000_aaaa' });
    const b = await createSession(root, { ...meta, id: 'session_20261122_100000_bbbb' });

    const error = await loadSession(root, 'session_nope').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionNotFoundError);
    expect((error as SessionNotFoundError).message).toBe(
      `unknown session "session_nope"; known sessions: ${b.id}, ${a.id}`,
    );
    expect((error as SessionNotFoundError).code).toBe('usage_error');
    // Path tricks are unknown ids too.
    await expect(loadSession(root, '../x')).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(loadSession(path.join(root, 'none'), 'x')).rejects.toThrow(/there are no sessions in/);
  });

  it('an unknown id among many names only the 5 most recent, how many more there are, and the listing command', async () => {
    const root = tempDir();
    const ids: string[] = [];
    for (let hour = 10; hour < 22; hour++) {
      const id = `session_20261122_${hour}0000_abcd`;
      ids.push(id);
      await createSession(root, { ...meta, id, createdAt: new Date(`2026-11-22T${hour}:00:00.000Z`) });
    }
    const newest = ids.slice().reverse();

    const error = (await loadSession(root, 'session_nope').catch((e: unknown) => e)) as SessionNotFoundError;
    expect(error.message).toBe(
      `unknown session "session_nope"; the 5 most recent: ${newest.slice(0, 5).join(', ')} (and 7 more)`,
    );
    expect(error.hint).toBe('massgen --list-sessions shows every session with its first question');
    expect(error.knownIds).toEqual(newest);
  });

  it('loading a corrupt session throws SessionCorruptError naming the file', async () => {
    const root = tempDir();
    const session = await createSession(root, meta);
    await appendTurn(session, turn('q', 'a'));
    fs.rmSync(path.join(session.dir, 'turn_1', 'answer.txt'));
    const error = await loadSession(root, session.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect((error as SessionCorruptError).path).toBe(path.join(session.dir, 'turn_1', 'answer.txt'));
  });

  it('a missing root is an empty list, and latestSession is null', async () => {
    const root = path.join(tempDir(), 'none');
    expect(await listSessions(root)).toEqual({ sessions: [], problems: [] });
    expect(await latestSession(root)).toBeNull();
  });
});
