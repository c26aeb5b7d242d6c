/**
 * Redis faults that must end with a clear outcome, with real redis-server processes and real signals:
 * a Redis that dies for good (batch and workers say so, with the password masked, and stop in bounded
 * time — a worker's third signal quits at once) and a Redis that restarts empty (the batch adds its
 * lost jobs again and keeps every line it had; the summary says Redis lost its data; a server's
 * request in progress runs again and its client gets the answer).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/index.js';
import { redisServerPath, startRedisServer, type RedisServer } from '../support/redis-server.js';
import {
  batchWorkdir,
  convergingHandler,
  finalAnswerOf,
  linesOf,
  makeWorkdir,
  startCli,
  useFakeServer,
  waitFor,
  type RunningCli,
} from './cli-harness.js';

const noRedis = redisServerPath === null;
const SKIP = noRedis ? ' (skipped: redis-server is not installed)' : '';
const QUEUE_SECRET = 'fa017'.repeat(10);
const PASSWORD = 'redis-pa55word-do-not-print';

const fake = useFakeServer();
const servers: RedisServer[] = [];
const children: RunningCli[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGKILL');
    await child.result;
  }
  for (const server of servers.splice(0)) await server.stop();
});

async function redisServer(): Promise<RedisServer> {
  const server = await startRedisServer({ password: PASSWORD });
  servers.push(server);
  return server;
}

/** The URL as massgen prints it: the password masked. */
const shown = (server: RedisServer) => `redis://:***@127.0.0.1:${server.port}`;

const setup = (count: number) => batchWorkdir(fake.server.url, count);

async function startWorker(server: RedisServer, args: string[] = []): Promise<RunningCli> {
  const cli = startCli(['worker', '--queue', server.url, ...args], {
    cwd: makeWorkdir(),
    env: { MASSGEN_QUEUE_SECRET: QUEUE_SECRET },
    timeoutMs: 300_000,
  });
  children.push(cli);
  await waitFor(
    () => /taking runs/.test(cli.stdout) || cli.child.exitCode !== null,
    60_000,
    'a worker to start',
  );
  if (!/taking runs/.test(cli.stdout)) throw new Error(`the worker did not start: ${cli.stderr}`);
  return cli;
}

function startBatch(server: RedisServer, cwd: string): RunningCli {
  const cli = startCli(
    ['batch', '--config', 'team.yaml', '--input', 'q.jsonl', '--output', 'r.jsonl', '--queue', server.url],
    { cwd, env: { MASSGEN_QUEUE_SECRET: QUEUE_SECRET }, timeoutMs: 300_000 },
  );
  children.push(cli);
  return cli;
}

interface Line {
  id: string;
  run_id: string;
  status: string;
  error: { code: string } | null;
}
const results = (cwd: string): Line[] => {
  try {
    return linesOf(readFileSync(path.join(cwd, 'r.jsonl'), 'utf8')).map((l) => JSON.parse(l) as Line);
  } catch {
    return [];
  }
};

const questionOf = (body: FakeChatRequestBody | null | undefined) =>
  /Question (q\d+):/.exec(JSON.stringify(body?.messages ?? []))?.[1] ?? null;

/** Waits for a process to exit, failing with what it printed when it does not. */
async function exited(cli: RunningCli, what: string, timeoutMs = 90_000) {
  await waitFor(() => cli.child.exitCode !== null || cli.child.signalCode !== null, timeoutMs, what).catch(
    (error: Error) => {
      throw new Error(`${error.message}\nstdout: ${cli.stdout}\nstderr: ${cli.stderr}`);
    },
  );
  return cli.result;
}

describe('Redis gone for good', () => {
  it.skipIf(noRedis)(
    `batch and workers say so (password masked) and stop in bounded time; a worker's third signal quits${SKIP}`,
    async () => {
      const server = await redisServer();
      // The model never answers: runs stay in progress.
      fake.server.setHandler((): FakeResponse => ({ hang: true, sendHeaders: true }));
      const cwd = setup(1);
      const busy = await startWorker(server, ['--concurrency', '1']);
      const batch = startBatch(server, cwd);
      await waitFor(() => fake.server.requests.length > 0, 60_000, 'the worker to call the model');
      const idle = await startWorker(server, ['--concurrency', '1']);
      const started = Date.now();
      await server.kill();

      const unreachable = new RegExp(
        `Redis at ${shown(server).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} unreachable since \\d\\d:\\d\\d:\\d\\d`,
      );
      for (const [cli, who] of [
        [batch, 'the batch'],
        [busy, 'a worker'],
      ] as const)
        await waitFor(() => unreachable.test(cli.stderr), 60_000, `${who} to say Redis is unreachable`).catch(
          (error: Error) => {
            throw new Error(`${error.message}; it said: ${cli.stderr}`);
          },
        );

      // Ctrl-C: the batch stops waiting for Redis and exits, keeping what it has.
      batch.child.kill('SIGINT');
      const stopped = await exited(batch, 'the interrupted batch to exit');
      expect(stopped.code).toBe(130);
      expect(stopped.stdout).toContain('Interrupted: 1 not answered yet');

      // A worker with nothing to finish stops on the first signal.
      idle.child.kill('SIGTERM');
      const quiet = await exited(idle, 'the idle worker to stop');
      expect(quiet.code).toBe(0);
      expect(quiet.stderr).toContain('massgen worker: stopped');

      // A worker with a run: finish (never, the model hangs), return it (Redis is gone), then force.
      busy.child.kill('SIGTERM');
      await waitFor(() => busy.stderr.includes('finishing 1 run in progress'), 30_000, 'the first stop');
      busy.child.kill('SIGINT');
      await waitFor(() => busy.stderr.includes('press Ctrl-C again to force'), 30_000, 'the second stop');
      busy.child.kill('SIGTERM');
      const forced = await exited(busy, 'the worker to quit on the third signal');
      expect(forced.code).toBe(130);
      expect(forced.stderr).toContain('massgen worker: forced to stop');

      for (const cli of [batch, busy, idle]) expect(cli.stdout + cli.stderr).not.toContain(PASSWORD);
      // Said when it happened and then at most every 30 s — not at every reconnect attempt.
      const allowed = 2 + Math.floor((Date.now() - started) / 30_000);
      expect(batch.stderr.match(/unreachable since/g)?.length ?? 0).toBeLessThanOrEqual(allowed);
      expect(busy.stderr.match(/unreachable since/g)?.length ?? 0).toBeLessThanOrEqual(allowed);
    },
    300_000,
  );
});

describe('Redis restarted empty', () => {
  it.skipIf(noRedis)(
    `the batch adds its lost jobs again: every question gets one line, the lines it had stay${SKIP}`,
    async () => {
      const server = await redisServer();
      // q1–q8 are answered at once; the others wait for the gate, so they are mid-run on the workers
      // when Redis loses everything.
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const early = new Set(Array.from({ length: 8 }, (_, i) => `q${i + 1}`));
      fake.server.setHandler(async (body: FakeChatRequestBody) => {
        if (!early.has(questionOf(body) ?? '')) await gate;
        return convergingHandler(body);
      });
      const cwd = setup(20);
      await startWorker(server, ['--concurrency', '4']);
      await startWorker(server, ['--concurrency', '4']);
      const batch = startBatch(server, cwd);
      await waitFor(
        () =>
          results(cwd).length === 8 && fake.server.requests.some((r) => !early.has(questionOf(r.body) ?? '')),
        120_000,
        'q1–q8 answered and later questions running',
      );
      const before = results(cwd);

      await server.restart();
      open();
      const done = await exited(batch, 'the batch to finish after Redis came back empty', 240_000);
      expect(done.stderr).toContain(`Redis at ${shown(server)} lost its data`);
      expect(done.code).toBe(0);
      expect(done.stdout).toMatch(/^Batch: 20 of 20 answered \(20 completed, 0 failed\)/);
      expect(done.stdout).not.toContain('drained');
      const lines = results(cwd);
      expect(lines.map((l) => l.id).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `q${i + 1}`).sort());
      expect(lines.every((l) => l.status === 'completed' && l.error === null)).toBe(true);
      // The lines written before the loss are untouched.
      expect(lines.slice(0, 8)).toEqual(before);
      expect(done.stdout + done.stderr).not.toContain(PASSWORD);
    },
    300_000,
  );
});

describe('Redis restarted empty under massgen serve --queue', () => {
  it.skipIf(noRedis)(
    `a request in progress is added again and its client still gets the answer${SKIP}`,
    async () => {
      const server = await redisServer();
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      fake.server.setHandler(async (body: FakeChatRequestBody) => {
        await gate;
        return convergingHandler(body);
      });
      const cwd = setup(0);
      await startWorker(server, ['--concurrency', '2']);
      const serve = startCli(
        ['serve', '--config', 'team.yaml', '--port', '0', '--api-key', 'faults-key', '--queue', server.url],
        { cwd, env: { MASSGEN_QUEUE_SECRET: QUEUE_SECRET }, timeoutMs: 300_000 },
      );
      children.push(serve);
      await waitFor(
        () => /massgen serve: (http:\S+)/.test(serve.stdout) || serve.child.exitCode !== null,
        60_000,
        'serve to listen',
      );
      const baseURL = /massgen serve: (http:\S+)/.exec(serve.stdout)?.[1];
      const client = new OpenAI({ baseURL, apiKey: 'faults-key', maxRetries: 0, timeout: 240_000 });
      const answer = client.chat.completions.create({
        model: 'massgen',
        messages: [{ role: 'user', content: 'What is 6 times 7?' }],
      });
      await waitFor(() => fake.server.requests.length > 0, 60_000, 'the worker to call the model');
      await server.restart();
      open();
      const reply = await answer;
      expect(reply.choices[0]?.message.content).toBe(finalAnswerOf('alpha'));
      await waitFor(
        () => serve.stderr.includes(`Redis at ${shown(server)} lost its data`),
        30_000,
        'serve to say Redis lost its data',
      );
      expect(serve.stdout + serve.stderr).not.toContain(PASSWORD);
    },
    300_000,
  );
});
