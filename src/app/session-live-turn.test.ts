import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCheckpoint } from '../subagents/checkpoint.js';
import { newCheckpoint } from '../subagents/subagent-records.js';
import { startTurn } from '../logging/session-store.js';
import { createSession, loadSession, runSessionTurn, stillRunningProcess } from './sessions.js';
import { startFakeOpenAIServer } from '../testing/fake-openai-server.js';
import { workdir } from './sessions.test-support.js';

/** The id of a process that has ended (a child we waited for). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  if (child.pid === undefined) throw new Error('could not start a short-lived node process');
  return child.pid;
}

/**
 * A session whose only turn is unfinished, run by `pid` on `hostname`, with a subagent checkpoint
 * (finished, so taking it over starts nothing) in its log folder.
 */
async function sessionWithUnfinishedTurn(cwd: string, owner: { pid: number; hostname: string }) {
  const logDir = path.join(cwd, '.massgen', 'massgen_logs', 'log_20261129_060000_000001');
  fs.mkdirSync(logDir, { recursive: true });
  await writeCheckpoint(logDir, {
    ...newCheckpoint(
      'sa1-0123abcd',
      'alice',
      { task: 'a part of the job' },
      { subagentType: null, timeoutSeconds: 120, background: true, startedAt: '2026-11-29T06:00:00.000Z' },
    ),
    state: 'completed',
    answer: 'part done',
  });
  const root = path.join(cwd, '.massgen', 'sessions');
  const created = await createSession(root, { configSource: 'team.yaml' });
  await startTurn(created, {
    question: 'Long job',
    startedAt: '2026-11-29T06:00:00.000Z',
    logDir,
    process: owner,
  });
  return loadSession(root, created.id);
}

/**
 * The subagents a turn continuing `session` took over from the previous turn: a taken-over checkpoint
 * is copied into the new run's log folder. One agent, from the config (subagents are a config's), on a
 * fake server on loopback that answers in plain text.
 */
async function takenOver(cwd: string, session: Awaited<ReturnType<typeof sessionWithUnfinishedTurn>>) {
  const server = await startFakeOpenAIServer();
  try {
    server.setHandler(() => ({ text: 'Done.' }));
    const outcome = await runSessionTurn({
      config: {
        agents: [
          {
            id: 'alice',
            backend: {
              type: 'chatcompletion',
              model: 'fake-model',
              base_url: server.url,
              api_key: 'sk-test',
            },
          },
        ],
        orchestrator: { coordination: { enable_subagents: true } },
      },
      cwd,
      env: {},
      logging: true,
      question: 'Go on',
      session,
    });
    expect(outcome.result.status).toBe('completed');
    const root = path.join(outcome.result.logDir ?? '', 'subagents');
    return fs.existsSync(root) ? fs.readdirSync(root) : [];
  } finally {
    await server.close();
  }
}

describe('a turn still running in another process keeps its subagents (--continue)', () => {
  it('records this process (pid, hostname) at the turn start, and forgets it once the turn is finished', async () => {
    const cwd = workdir();
    const session = await sessionWithUnfinishedTurn(cwd, { pid: process.pid, hostname: os.hostname() });
    const [turn] = session.turns;
    expect(turn?.process).toEqual({ pid: process.pid, hostname: os.hostname() });
    expect(stillRunningProcess(turn!)).toBe(process.pid);
    // Finished turns have nobody running them.
    expect(stillRunningProcess({ unfinished: false, process: turn!.process })).toBeNull();
  });

  it('a dead pid, or a pid on another host, is not running it', () => {
    const hostname = os.hostname();
    expect(stillRunningProcess({ unfinished: true, process: { pid: deadPid(), hostname } })).toBeNull();
    expect(
      stillRunningProcess({ unfinished: true, process: { pid: process.pid, hostname: `not-${hostname}` } }),
    ).toBeNull();
  });

  it('does not take over the subagents of a turn whose process is alive (a live pid: this one)', async () => {
    const cwd = workdir();
    const session = await sessionWithUnfinishedTurn(cwd, { pid: process.pid, hostname: os.hostname() });
    expect(await takenOver(cwd, session)).toEqual([]);
  });

  it('takes over the subagents of a turn whose process is dead', async () => {
    const cwd = workdir();
    const session = await sessionWithUnfinishedTurn(cwd, { pid: deadPid(), hostname: os.hostname() });
    expect(await takenOver(cwd, session)).toEqual(['sa1-0123abcd']);
  });
});
