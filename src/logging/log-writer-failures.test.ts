import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { RunEvent, RunEventInput } from '../types/events.js';
import { agents, listFiles, newWriter, readJson, stamper, T0, tempDir } from './log-writer.test-support.js';
import { LogFolderError } from './log-writer.js';
import { formatLogTimestamp } from './paths.js';
import type { StatusDocument } from './status-document.js';
import type { VoteDocument } from './vote-document.js';
import { POLL } from '../../test/support/wait.js';

const NOBODY = 65534;

/**
 * Root writes into any folder whatever its mode, so when the tests run as root (as CI does) the
 * read-only case runs the writer as `nobody` — through `setpriv`, in a child process running this
 * folder's source under tsx. As any other user it runs here. Either way: the error message, or null.
 */
const unprivileged = ((): {
  ok: boolean;
  reason: string;
  uid: number | null;
  createWriterIn: (root: string) => Promise<string | null>;
} => {
  const direct = async (root: string) =>
    newWriter(root).then(
      () => null,
      (error: unknown) => (error instanceof LogFolderError ? error.message : String(error)),
    );
  if (process.getuid?.() !== 0) return { ok: true, reason: '', uid: null, createWriterIn: direct };
  const drop = [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'];
  if (spawnSync('setpriv', [...drop, 'true']).status !== 0)
    return {
      ok: false,
      reason: 'running as root, which writes into any folder, and setpriv cannot drop to nobody',
      uid: null,
      createWriterIn: direct,
    };
  const repo = fileURLToPath(new URL('../..', import.meta.url));
  const source = fileURLToPath(new URL('./log-writer.ts', import.meta.url));
  const createWriterIn = async (root: string) => {
    const script = `import(${JSON.stringify(source)}).then(async (m) => {
      try {
        await m.createRunLogWriter({ rootDir: ${JSON.stringify(root)}, metadata: { config: {}, versions: {}, extra: {} } });
        console.log('null');
      } catch (e) { console.log(JSON.stringify(e instanceof m.LogFolderError ? e.message : String(e))); }
    });`;
    const run = spawnSync('setpriv', [...drop, process.execPath, '--import', 'tsx', '-e', script], {
      cwd: repo,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir() },
      timeout: 60_000,
    });
    if (run.status !== 0) throw new Error(`the writer run as nobody failed: ${run.stderr}`);
    return JSON.parse(run.stdout.trim()) as string | null;
  };
  return { ok: true, reason: '', uid: NOBODY, createWriterIn };
})();

/** A short run with an answer and a final answer, so every kind of file would be written. */
function answeredRun(): RunEvent[] {
  const ev = stamper();
  return [
    ev(0, { type: 'run.started', question: 'q', agents, settings: {} }),
    ev(1, { type: 'agent.turn.started', agentId: 'bob', turn: 1, visibleAnswers: [] }),
    ev(2, { type: 'agent.text.delta', agentId: 'bob', phase: 'coordination', kind: 'text', text: 'x' }),
    ev(3, {
      type: 'answer.submitted',
      agentId: 'bob',
      anonymousId: 'agent2',
      label: 'agent2.1',
      content: 'B',
    }),
    ev(4, {
      type: 'coordination.finished',
      reason: 'timeout',
      winnerId: 'bob',
      winnerLabel: 'agent2.1',
      tallies: {},
    }),
    ev(5, {
      type: 'presentation.finished',
      agentId: 'bob',
      label: 'agent2.final',
      content: 'B!',
      fallback: false,
    }),
    ev(6, {
      type: 'run.finished',
      status: 'completed',
      exitCode: 0,
      winnerId: 'bob',
      finalAnswer: 'B!',
      durationMs: 6,
      usage: {},
      costUsd: {},
    }),
  ];
}

describe('createRunLogWriter when things go wrong', () => {
  it('records a failed run without a final folder', async () => {
    const writer = await newWriter(tempDir());
    const ev = stamper('run-f');
    const two = agents.slice(0, 2);
    const inputs: RunEventInput[] = [
      { type: 'run.started', question: 'q', agents: two, settings: {} },
      ...two.flatMap((a): RunEventInput[] => [
        { type: 'agent.turn.started', agentId: a.agentId, turn: 1, visibleAnswers: [] },
        {
          type: 'agent.step.retrying',
          agentId: a.agentId,
          phase: 'coordination',
          attempt: 1,
          delayMs: 500,
          error: { code: 'provider_error', message: '429 rate limited' },
        },
        {
          type: 'agent.turn.finished',
          agentId: a.agentId,
          turn: 1,
          outcome: 'failed',
          durationMs: 5,
          error: { code: 'provider_error', message: 'boom' },
          consecutiveFailures: 1,
        },
        { type: 'agent.dropped', agentId: a.agentId, reason: 'failed 1 turn in a row' },
      ]),
      {
        type: 'coordination.finished',
        reason: 'all_agents_failed',
        winnerId: null,
        winnerLabel: null,
        tallies: {},
      },
      {
        type: 'run.finished',
        status: 'failed',
        exitCode: 2,
        winnerId: null,
        finalAnswer: null,
        durationMs: 50,
        usage: {},
        costUsd: {},
        error: { code: 'run_failed', message: 'every agent failed' },
      },
    ];
    inputs.forEach((input, i) => writer.handle(ev(i * 10, input)));
    await writer.flush();

    expect(writer.writeError).toBeNull();
    expect(writer.finalAnswerPath()).toBeNull();
    expect(fs.existsSync(path.join(writer.logDir, 'final'))).toBe(false);
    expect(listFiles(writer.logDir).filter((f) => f.startsWith('agent_'))).toEqual([]);
    const status = readJson<StatusDocument>(writer.statusPath);
    expect(status.phase).toBe('finished');
    expect(status.final).toEqual({
      status: 'failed',
      exit_code: 2,
      answer_file: null,
      error: { code: 'run_failed', message: 'every agent failed' },
    });
    expect(status.agents.alice).toMatchObject({
      status: 'dropped',
      dropped_reason: 'failed 1 turn in a row',
      total_failures: 1,
      consecutive_failures: 1,
    });
    const votes = readJson<VoteDocument>(path.join(writer.logDir, 'vote.json'));
    expect(votes).toEqual({
      winner: null,
      winner_label: null,
      reason: 'all_agents_failed',
      tallies: {},
      votes: [],
    });
    const table = fs.readFileSync(path.join(writer.logDir, 'coordination_table.txt'), 'utf8');
    expect(table).toContain('turn 1 FAILED: boom');
    expect(table).toContain('DROPPED');
    expect(table).toContain('RUN FINISHED: failed, exit code 2');
    const metadata = parse(
      fs.readFileSync(path.join(writer.logDir, 'execution_metadata.yaml'), 'utf8'),
    ) as Record<string, unknown>;
    expect(metadata).toMatchObject({ status: 'failed', exit_code: 2, winner: null, final_answer_file: null });
  });

  it('keeps answers of a cancelled run written only by flushSync', async () => {
    const writer = await newWriter(tempDir());
    const ev = stamper('run-c');
    writer.handle(ev(0, { type: 'run.started', question: 'q', agents, settings: {} }));
    writer.handle(
      ev(5, {
        type: 'answer.submitted',
        agentId: 'alice',
        anonymousId: 'agent1',
        label: 'agent1.1',
        content: 'A1',
      }),
    );
    // Same millisecond as the previous answer of the same agent: needs its own folder.
    writer.handle(
      ev(5, {
        type: 'answer.submitted',
        agentId: 'alice',
        anonymousId: 'agent1',
        label: 'agent1.2',
        content: 'A2',
      }),
    );
    writer.handle(
      ev(7, {
        type: 'answer.submitted',
        agentId: 'carol',
        anonymousId: 'agent3',
        label: 'agent3.1',
        content: 'C1',
      }),
    );
    writer.handle(
      ev(9, {
        type: 'run.finished',
        status: 'cancelled',
        exitCode: 130,
        winnerId: null,
        finalAnswer: null,
        durationMs: 9,
        usage: {},
        costUsd: {},
      }),
    );
    writer.flushSync();

    // Checked before yielding to the event loop: only the synchronous flush can have written these.
    const files = listFiles(writer.logDir);
    const stamp = formatLogTimestamp(new Date(T0 + 5));
    expect(files).toContain(path.join('agent_alice', stamp, 'answer.txt'));
    expect(files).toContain(path.join('agent_alice', `${stamp}_2`, 'answer.txt'));
    expect(files.filter((f) => f.endsWith('answer.txt'))).toHaveLength(3);
    expect(fs.readFileSync(path.join(writer.logDir, 'agent_alice', `${stamp}_2`, 'answer.txt'), 'utf8')).toBe(
      'A2',
    );
    expect(readJson<StatusDocument>(writer.statusPath).final.status).toBe('cancelled');
    expect(readJson<unknown[]>(path.join(writer.logDir, 'coordination_events.json'))).toHaveLength(5);
    expect(files).toContain('vote.json');
    expect(files).toContain('execution_metadata.yaml');
    expect(files.filter((f) => f.includes('.tmp-'))).toEqual([]);

    // The asynchronous write queued by run.finished must settle without leaving debris.
    await writer.flush();
    expect(listFiles(writer.logDir).filter((f) => f.includes('.tmp-'))).toEqual([]);
    expect(writer.writeError).toBeNull();
  });

  it('refuses to start when the root folder cannot be created, naming the folder and the reason', async () => {
    const dir = tempDir();
    const blocker = path.join(dir, 'a-file');
    fs.writeFileSync(blocker, 'not a folder');
    const error = await newWriter(path.join(blocker, 'logs')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LogFolderError);
    expect((error as LogFolderError).code).toBe('config_error');
    expect((error as LogFolderError).message).toMatch(
      new RegExp(`^cannot write the log folder ${path.join(blocker, 'logs')}.*: ENOTDIR`),
    );
    expect(fs.readdirSync(dir)).toEqual(['a-file']);
  });

  it.skipIf(!unprivileged.ok)(
    `refuses a read-only root folder, naming it and the reason${unprivileged.ok ? '' : ` (skipped: ${unprivileged.reason})`}`,
    async () => {
      const base = tempDir();
      // `nobody` must reach the folder to be refused by it, not by its parent.
      fs.chmodSync(base, 0o755);
      const root = path.join(base, 'logs');
      fs.mkdirSync(root, { mode: 0o500 });
      // The writer's own read-only folder, as an ordinary user's would be.
      if (unprivileged.uid !== null) fs.chownSync(root, unprivileged.uid, unprivileged.uid);
      const message = await unprivileged.createWriterIn(root);
      expect(message).toMatch(new RegExp(`^cannot write the log folder ${root}.*EACCES`));
      expect(fs.readdirSync(root)).toEqual([]);
    },
  );
});

describe('events.jsonl', () => {
  it('appends every event as one JSON line while the run goes on, before any flush', async () => {
    const writer = await newWriter(tempDir());
    const journal = path.join(writer.logDir, 'events.jsonl');
    expect(fs.readFileSync(journal, 'utf8')).toBe('');
    const events = answeredRun();
    for (const event of events.slice(0, 3)) writer.handle(event);
    // Buffered for at most a few hundred milliseconds, then on disk without any flush call.
    await expect.poll(() => fs.readFileSync(journal, 'utf8').split('\n').length - 1, POLL).toBe(3);
    for (const event of events.slice(3)) writer.handle(event);
    await writer.flush();
    const lines = fs.readFileSync(journal, 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l) as RunEvent)).toEqual(events);
  });

  it('terminateSync ends an unfinished run in a terminal state on disk, synchronously', async () => {
    const writer = await newWriter(tempDir());
    const ev = stamper('run-t');
    writer.handle(ev(0, { type: 'run.started', question: 'q', agents, settings: {} }));
    writer.handle(ev(1, { type: 'agent.turn.started', agentId: 'alice', turn: 1, visibleAnswers: [] }));
    writer.terminateSync({
      status: 'cancelled',
      exitCode: 130,
      error: { code: 'cancelled', message: 'interrupted twice' },
    });
    const status = readJson<StatusDocument>(writer.statusPath);
    expect(status.phase).toBe('finished');
    expect(status.final).toMatchObject({ status: 'cancelled', exit_code: 130 });
    expect(status.agents.alice?.status).toBe('stopped');
    const lines = fs.readFileSync(path.join(writer.logDir, 'events.jsonl'), 'utf8').trimEnd().split('\n');
    const last = JSON.parse(lines.at(-1) as string) as RunEvent;
    expect(last).toMatchObject({ type: 'run.finished', runId: 'run-t', seq: 2, status: 'cancelled' });
    // A run that already finished is left as it ended.
    writer.terminateSync({ status: 'failed', exitCode: 2, error: { code: 'x', message: 'y' } });
    expect(readJson<StatusDocument>(writer.statusPath).final.status).toBe('cancelled');
    await writer.flush();
  });
});
