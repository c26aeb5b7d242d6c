import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../types/events.js';
import { createSessionRunner, loadSession, runSessionTurn, sessionsRoot } from './sessions.js';
import { finalOf, scriptedTeam, userText, workdir } from './sessions.test-support.js';

describe('runSessionTurn', () => {
  it('creates the session on the first turn, then sends the earlier turns as history', async () => {
    const cwd = workdir();
    const team = scriptedTeam();
    const events: RunEvent[] = [];

    const first = await runSessionTurn({
      ...team,
      cwd,
      env: {},
      question: 'What is 6 x 7?',
      session: null,
      newSession: { configSource: 'team.yaml', agents: [{ id: 'alice', backend: 'scripted', model: 'm' }] },
      onEvent: (event) => events.push(event),
    });

    expect(first.result).toMatchObject({
      status: 'completed',
      winnerId: 'alice',
      finalAnswer: finalOf('What is 6 x 7?'),
    });
    expect(first.prepareError).toBeNull();
    expect(first.storeError).toBeNull();
    expect(events[0]?.type).toBe('run.started');
    expect(events.at(-1)?.type).toBe('run.finished');
    const session = first.session;
    expect(session?.dir).toBe(path.join(sessionsRoot(cwd), session?.id ?? ''));
    expect(first.turnDir).toBe(path.join(session?.dir ?? '', 'turn_1'));
    expect(first.record).toMatchObject({
      winnerId: 'alice',
      winnerLabel: 'agent1.1',
      status: 'completed',
      exitCode: 0,
    });
    expect(first.record.logDir).toBe(first.result.logDir);
    expect(first.record.usage.alice?.inputTokens).toBeGreaterThan(0);

    const requestsBefore = team.backends.alice?.requests.length ?? 0;
    const second = await runSessionTurn({ ...team, cwd, env: {}, question: 'And 6 x 8?', session });

    expect(second.result.status).toBe('completed');
    const secondTurnRequests = team.backends.alice?.requests.slice(requestsBefore) ?? [];
    expect(secondTurnRequests.length).toBeGreaterThan(0);
    for (const request of secondTurnRequests) {
      expect(userText(request)).toContain('<CONVERSATION SO FAR>');
      expect(userText(request)).toContain('User: What is 6 x 7?');
      expect(userText(request)).toContain(`Final answer: ${finalOf('What is 6 x 7?')}`);
    }
    const stored = await loadSession(sessionsRoot(cwd), session?.id ?? '');
    expect(stored.turns.map((t) => t.question)).toEqual(['What is 6 x 7?', 'And 6 x 8?']);
    expect(stored.configSource).toBe('team.yaml');
  });

  it('records the turn at its start (unfinished, with its log folder), then finishes it', async () => {
    const cwd = workdir();
    const team = scriptedTeam();
    let seenWhileRunning: unknown = null;
    const outcome = await runSessionTurn({
      ...team,
      cwd,
      env: {},
      question: 'What is 6 x 7?',
      session: null,
      logging: true,
      onEvent: (event) => {
        // What a `kill -9` at this moment would leave behind.
        if (event.type !== 'run.finished') return;
        const [id] = fs.readdirSync(sessionsRoot(cwd));
        const file = path.join(sessionsRoot(cwd), id ?? '', 'turn_1', 'metadata.json');
        seenWhileRunning = JSON.parse(fs.readFileSync(file, 'utf8'));
      },
    });
    expect(seenWhileRunning).toMatchObject({
      unfinished: true,
      question: 'What is 6 x 7?',
      log_dir: outcome.result.logDir,
    });
    expect(outcome.result.logDir).not.toBeNull();
    expect(outcome.turnDir).toBe(path.join(outcome.session?.dir ?? '', 'turn_1'));
    const stored = await loadSession(sessionsRoot(cwd), outcome.session?.id ?? '');
    expect(stored.turns.map((t) => [t.index, t.unfinished, t.status])).toEqual([[1, false, 'completed']]);
  });

  it('records a failed turn as failed; the session stays usable', async () => {
    const cwd = workdir();
    const team = scriptedTeam();
    const ok = await runSessionTurn({ ...team, cwd, env: {}, question: 'first', session: null });
    const failed = await runSessionTurn({
      ...team,
      cwd,
      env: {},
      question: 'please FAIL',
      session: ok.session,
    });

    expect(failed.result).toMatchObject({ status: 'failed', exitCode: 2, finalAnswer: null });
    expect(failed.session?.turns.map((t) => [t.status, t.exitCode])).toEqual([
      ['completed', 0],
      ['failed', 2],
    ]);
    expect(failed.session?.turns[1]?.error?.message).toMatch(/All agents failed/);
    // Only turns with an answer are history.
    expect(failed.session?.history.map((h) => h.question)).toEqual(['first']);
  });

  it('records a turn that could not start (bad config) with its error', async () => {
    const cwd = workdir();
    const outcome = await runSessionTurn({
      config: { agents: [] },
      cwd,
      env: {},
      question: 'q',
      session: null,
    });
    expect(outcome.prepareError).toBeInstanceOf(Error);
    expect(outcome.result).toMatchObject({ status: 'failed', exitCode: 1 });
    expect(outcome.session?.turns[0]).toMatchObject({ status: 'failed', exitCode: 1, answer: null });
    expect(outcome.session?.turns[0]?.error?.code).toBe('config_error');
  });

  it('records a cancelled turn', async () => {
    const cwd = workdir();
    const team = scriptedTeam();
    const controller = new AbortController();
    const outcome = await runSessionTurn({
      ...team,
      cwd,
      env: {},
      question: 'HANG please',
      session: null,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'agent.step.started') controller.abort();
      },
    });
    expect(outcome.result).toMatchObject({ status: 'cancelled', exitCode: 130 });
    expect(outcome.session?.turns[0]).toMatchObject({ status: 'cancelled', exitCode: 130 });
    expect(fs.existsSync(path.join(outcome.result.logDir ?? '', 'status.json'))).toBe(true);
  });

  it('writes nothing with persist: false', async () => {
    const cwd = workdir();
    const outcome = await runSessionTurn({
      ...scriptedTeam(),
      cwd,
      env: {},
      question: 'q',
      session: null,
      persist: false,
      logging: false,
    });
    expect(outcome.result.status).toBe('completed');
    expect(outcome.session).toBeNull();
    expect(fs.existsSync(path.join(cwd, '.massgen'))).toBe(false);
  });
});

describe('createSessionRunner', () => {
  it('tracks turns, history, status; clear() starts a new session', async () => {
    const cwd = workdir();
    const team = scriptedTeam();
    const runner = createSessionRunner({ ...team, cwd, env: {} });

    expect(runner.agents).toEqual([
      { id: 'alice', backend: 'scripted', model: 'model-alice' },
      { id: 'bob', backend: 'scripted', model: 'model-bob' },
    ]);
    expect(runner.session).toBeNull();
    const firstId = runner.sessionId;
    expect(runner.status()).toMatchObject({
      sessionId: firstId,
      sessionDir: null,
      turnCount: 0,
      totalCostUsd: 0,
      pricedAgents: null,
    });

    await runner.runTurn('one');
    await runner.runTurn('two FAIL');
    await runner.runTurn('three');

    expect(runner.session?.id).toBe(firstId);
    expect(runner.turns.map((t) => [t.index, t.status])).toEqual([
      [1, 'completed'],
      [2, 'failed'],
      [3, 'completed'],
    ]);
    expect(runner.history.map((h) => h.question)).toEqual(['one', 'three']);
    const status = runner.status();
    expect(status.turnCount).toBe(3);
    expect(status.sessionDir).toBe(path.join(sessionsRoot(cwd), firstId));
    expect(status.pricedAgents).toEqual([]);
    expect(status.totalUsage.inputTokens).toBe(
      (status.usage.alice?.inputTokens ?? 0) + (status.usage.bob?.inputTokens ?? 0),
    );
    expect(status.totalUsage.inputTokens).toBeGreaterThan(0);

    runner.clear();
    expect(runner.sessionId).not.toBe(firstId);
    expect(runner.session).toBeNull();
    expect(runner.turns).toEqual([]);
    const requestsBefore = team.backends.bob?.requests.length ?? 0;
    await runner.runTurn('fresh start');
    for (const request of team.backends.bob?.requests.slice(requestsBefore) ?? [])
      expect(userText(request)).not.toContain('CONVERSATION SO FAR');
    expect(fs.readdirSync(sessionsRoot(cwd)).sort()).toEqual([firstId, runner.sessionId].sort());
  });

  it('resumes a stored session: its turns are the history of the next question', async () => {
    const cwd = workdir();
    const first = createSessionRunner({ ...scriptedTeam(), cwd, env: {}, configSource: 'team.yaml' });
    await first.runTurn('earlier question');
    const stored = await loadSession(sessionsRoot(cwd), first.sessionId);

    const team = scriptedTeam();
    const resumed = createSessionRunner({ ...team, cwd, env: {}, session: stored });
    expect(resumed.sessionId).toBe(stored.id);
    expect(resumed.turns).toHaveLength(1);
    await resumed.runTurn('later question');

    expect(
      userText(team.backends.alice?.requests[0] ?? { messages: [], tools: [], toolChoice: undefined }),
    ).toContain('User: earlier question');
    expect((await loadSession(sessionsRoot(cwd), stored.id)).turns.map((t) => t.index)).toEqual([1, 2]);
  });

  it('masks secrets in the config it shows, and rejects a bad config up front', () => {
    const cwd = workdir();
    const runner = createSessionRunner({ ...scriptedTeam(), cwd, env: {} });
    const shown = JSON.stringify(runner.maskedConfig());
    expect(shown).not.toContain('sk-secret-alice');
    expect(shown).toContain('***');
    expect(runner.configSource).toBe('config object');
    expect(() => createSessionRunner({ config: { agents: [] }, cwd, env: {} })).toThrow(/agent/);
  });
});
