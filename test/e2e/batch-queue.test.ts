/**
 * Batches and `massgen serve` on a Redis queue (BullMQ), with `massgen worker` processes running the
 * runs: every process is the built CLI, Redis a private redis-server on a random loopback port, the
 * models the fake OpenAI-compatible server. Covers: 200 questions over two workers, a worker killed
 * with `kill -9` mid-run (its job completes once, on the other worker), SIGTERM (finish, or return the
 * run), rate limits held across workers, timeouts, retries and the dead-letter list, serve streaming a
 * run a worker executes, no secret in Redis, and an unreachable Redis as one clear error.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/index.js';
import { redisServerPath, startRedisServer, type RedisServer } from '../support/redis-server.js';
import {
  agentEntry,
  convergingHandler,
  finalAnswerOf,
  freePort,
  holdConvergingReplies,
  linesOf,
  makeWorkdir,
  persona,
  runCli,
  startCli,
  useFakeServer,
  waitFor,
  writeConfig,
  type RunningCli,
} from './cli-harness.js';
import { batchOnQueueArgs, startWorkerCli } from './queue-worker.test-support.js';

const noRedis = redisServerPath === null;
const SKIP = noRedis ? ' (skipped: redis-server is not installed)' : '';
const SECRET = 'sk-massgen-worker-secret-0123456789';
/** Shared by the batch (signs its jobs) and the workers (run only signed jobs). */
const QUEUE_SECRET = '5ecre7'.repeat(8);

const fake = useFakeServer();
let redis: RedisServer;
let queueCount = 0;
/** A queue of its own per test, so tests never see each other's jobs. */
let queue = '';
const children: RunningCli[] = [];

beforeAll(async () => {
  if (!noRedis) redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGKILL');
    await child.result;
  }
});

function nextQueue(): string {
  queue = `t${++queueCount}`;
  return queue;
}

/** A workdir with team.yaml (two agents whose key is `${MASSGEN_TEST_KEY}`) and N questions. */
function setup(count: number, extra: Record<string, unknown> = {}): string {
  const cwd = makeWorkdir();
  writeConfig(
    cwd,
    {
      agents: ['alpha', 'beta'].map((id) =>
        agentEntry(id, fake.server.url, {
          system_message: persona(id),
          backend: { api_key: '${MASSGEN_TEST_KEY}', ...(extra.backend as object) },
        }),
      ),
      ui: { logging_enabled: false },
      ...(extra.config as object),
    },
    'team.yaml',
  );
  const lines = Array.from({ length: count }, (_, i) => ({
    id: `q${i + 1}`,
    question: `Question q${i + 1}: 6 x 7?`,
  }));
  writeFileSync(path.join(cwd, 'q.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  return cwd;
}

interface Line {
  id: string;
  status: string;
  answer: string | null;
  winner: string | null;
  worker: string | null;
  log_dir: string | null;
  error: { code: string; message: string } | null;
}
const results = (cwd: string): Line[] => {
  try {
    return linesOf(readFileSync(path.join(cwd, 'r.jsonl'), 'utf8')).map((l) => JSON.parse(l) as Line);
  } catch {
    return [];
  }
};

/** Starts `massgen worker` on this test's queue; resolves once it takes runs, with its name. */
const startWorker = (args: string[] = []) =>
  startWorkerCli(
    {
      redisUrl: redis.url,
      queue,
      env: { MASSGEN_TEST_KEY: SECRET, MASSGEN_QUEUE_SECRET: QUEUE_SECRET },
      children,
    },
    args,
  );

function startBatch(cwd: string, args: string[] = []): RunningCli {
  const cli = startCli(batchOnQueueArgs(redis.url, queue, args), {
    cwd,
    env: { MASSGEN_TEST_KEY: SECRET, MASSGEN_QUEUE_SECRET: QUEUE_SECRET },
    timeoutMs: 240_000,
  });
  children.push(cli);
  return cli;
}

const jobsWaiting = async () => redis.client().llen(`massgen:q:${queue}:wait`);
const questionOf = (body: FakeChatRequestBody | null | undefined) =>
  /Question (q\d+):/.exec(JSON.stringify(body?.messages ?? []))?.[1] ?? null;

describe('batches on a Redis queue', () => {
  it.skipIf(noRedis)(
    `200 questions over two worker processes: 200 result lines, each id once; no key ever reaches Redis${SKIP}`,
    async () => {
      nextQueue();
      fake.server.setHandler(convergingHandler);
      const cwd = setup(200);
      // The batch queues its jobs before any worker runs, so they can be looked at in Redis first.
      const batch = startBatch(cwd);
      await waitFor(async () => (await jobsWaiting()) === 200, 60_000, '200 jobs on the queue');
      const queued = await redis.dump();
      expect(queued).toContain('Question q200: 6 x 7?');
      expect(queued).toContain('${MASSGEN_TEST_KEY}'); // The config travels with its reference unresolved…
      expect(queued).not.toContain(SECRET); // …never with the key.

      const one = await startWorker(['--concurrency', '8']);
      const two = await startWorker(['--concurrency', '8']);
      const done = await batch.result;
      expect(done.stderr).not.toMatch(/error/i);
      expect(done.code).toBe(0);
      const lines = results(cwd);
      expect(lines).toHaveLength(200);
      expect(new Set(lines.map((l) => l.id)).size).toBe(200);
      expect(lines.every((l) => l.status === 'completed' && l.answer === finalAnswerOf('alpha'))).toBe(true);
      expect(new Set(lines.map((l) => l.worker))).toEqual(new Set([one.name, two.name]));
      // The workers called the model with the key from their own environment.
      expect(fake.server.requests.every((r) => r.hasAuthorization)).toBe(true);
      const after = await redis.dump();
      expect(after).not.toContain(SECRET);
      // Jobs leave Redis once their lines are on disk; `queue status` still counts them as completed.
      expect(await redis.client().keys(`massgen:q:${queue}:b-*`)).toEqual([]);
      const status = await runCli(['queue', 'status', '--queue', redis.url, '--queue-name', queue], {
        cwd,
        timeoutMs: 60_000,
      });
      expect(status.stdout).toContain('waiting 0, active 0, delayed 0, completed 200, failed 0');
    },
    240_000,
  );

  it.skipIf(noRedis)(
    `a worker killed with kill -9 mid-run: its job completes once, on the other worker${SKIP}`,
    async () => {
      nextQueue();
      let released = false;
      fake.server.setHandler((body: FakeChatRequestBody): FakeResponse =>
        released ? convergingHandler(body) : { hang: true, sendHeaders: true },
      );
      const cwd = setup(1);
      const stall = ['--lock-duration', '2', '--stalled-interval', '1'];
      const doomed = await startWorker(stall);
      const batch = startBatch(cwd);
      await waitFor(() => fake.server.requests.length > 0, 60_000, 'the first worker to call the model');
      doomed.cli.child.kill('SIGKILL');
      expect((await doomed.cli.result).signal).toBe('SIGKILL');
      released = true;
      const survivor = await startWorker([...stall, '--concurrency', '1']);
      const done = await batch.result;
      expect(done.code).toBe(0);
      const lines = results(cwd);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ id: 'q1', status: 'completed', worker: survivor.name });
      expect(survivor.cli.stdout).toMatch(/job b-\w+-q1: started \(attempt 2\)/);
      expect(survivor.cli.stdout.match(/: completed/g)).toHaveLength(1);
    },
    180_000,
  );

  it.skipIf(noRedis)(
    `SIGTERM lets a worker finish its run; a second SIGTERM returns the run to the queue for another worker${SKIP}`,
    async () => {
      nextQueue();
      const open = holdConvergingReplies(fake.server);
      // Finish: the run in progress completes and its line is written; the worker exits 0.
      const cwd = setup(1);
      const worker = await startWorker(['--concurrency', '1']);
      const batch = startBatch(cwd);
      await waitFor(() => fake.server.requests.length > 0, 60_000, 'the worker to call the model');
      worker.cli.child.kill('SIGTERM');
      await waitFor(
        () => worker.cli.stderr.includes('finishing 1 run in progress'),
        30_000,
        'the worker to stop',
      );
      open();
      expect((await batch.result).code).toBe(0);
      expect(results(cwd)).toMatchObject([{ id: 'q1', status: 'completed', worker: worker.name }]);
      const stopped = await worker.cli.result;
      expect(stopped.code).toBe(0);
      expect(stopped.stderr).toContain('massgen worker: stopped');

      // Return: a second SIGTERM cancels the run and puts its job back; another worker runs it.
      fake.server.reset();
      const openAgain = holdConvergingReplies(fake.server);
      const cwd2 = setup(1);
      const leaving = await startWorker(['--concurrency', '1']);
      const batch2 = startBatch(cwd2);
      await waitFor(() => fake.server.requests.length > 0, 60_000, 'the worker to call the model');
      leaving.cli.child.kill('SIGTERM');
      await waitFor(() => leaving.cli.stderr.includes('finishing 1 run'), 30_000, 'the first stop');
      leaving.cli.child.kill('SIGTERM');
      const left = await leaving.cli.result;
      expect(left.code).toBe(0);
      expect(left.stdout).toMatch(
        /job b-\w+-q1: returned: worker \S+ stopped: the run goes back to the queue/,
      );
      openAgain();
      const taker = await startWorker(['--concurrency', '1']);
      expect((await batch2.result).code).toBe(0);
      expect(results(cwd2)).toMatchObject([{ id: 'q1', status: 'completed', worker: taker.name }]);
    },
    180_000,
  );

  it.skipIf(noRedis)(
    `Ctrl-C on a queued batch removes the jobs not started; the rerun collects the one a worker finished${SKIP}`,
    async () => {
      nextQueue();
      const open = holdConvergingReplies(fake.server);
      const cwd = setup(3);
      const worker = await startWorker(['--concurrency', '1']);
      const batch = startBatch(cwd);
      await waitFor(
        async () => fake.server.requests.length > 0 && (await jobsWaiting()) === 2,
        60_000,
        'one job running, two waiting',
      );
      const running = questionOf(fake.server.requests[0]?.body);
      batch.child.kill('SIGINT');
      const stopped = await batch.result;
      expect(stopped.code).toBe(130);
      expect(stopped.stdout).toContain('Interrupted: 3 not answered yet');
      expect(stopped.stderr).toContain('runs already on a worker finish there');
      expect(await jobsWaiting()).toBe(0);
      expect(results(cwd)).toEqual([]);
      open();
      await waitFor(() => /: completed/.test(worker.cli.stdout), 60_000, 'the running job to finish');
      const before = fake.server.requests.length;
      const rerun = await startBatch(cwd).result;
      expect(rerun.code).toBe(0);
      expect(
        results(cwd)
          .map((l) => l.id)
          .sort(),
      ).toEqual(['q1', 'q2', 'q3']);
      // The finished run was collected, not run again.
      const askedAgain = fake.server.requests.slice(before).map((r) => questionOf(r.body));
      expect(askedAgain).not.toContain(running);
      expect(askedAgain.length).toBeGreaterThan(0);
    },
    180_000,
  );

  it.skipIf(noRedis)(
    `a model's rate limit holds across workers (a limiter in Redis)${SKIP}`,
    async () => {
      nextQueue();
      fake.server.setHandler((body: FakeChatRequestBody) => ({ ...convergingHandler(body), delayMs: 2 }));
      // A proxy in front of the fake model counts the requests in flight at once.
      let inFlight = 0;
      let most = 0;
      const fakePort = Number(new URL(fake.server.url).port);
      const proxy: Server = createServer((req, res) => {
        inFlight++;
        most = Math.max(most, inFlight);
        let counted = true;
        const end = () => {
          if (counted) inFlight--;
          counted = false;
        };
        res.on('finish', end);
        res.on('close', end);
        const upstream = request(
          { host: '127.0.0.1', port: fakePort, path: req.url, method: req.method, headers: req.headers },
          (reply) => {
            res.writeHead(reply.statusCode ?? 502, reply.headers);
            reply.pipe(res);
          },
        );
        req.pipe(upstream);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const proxyPort = (proxy.address() as { port: number }).port;
      try {
        const cwd = setup(6, {
          backend: { model: 'shared-model', base_url: `http://127.0.0.1:${proxyPort}/v1` },
          config: { rate_limits: { 'shared-model': { concurrent_requests: 1 } } },
        });
        await startWorker(['--concurrency', '3']);
        await startWorker(['--concurrency', '3']);
        expect((await startBatch(cwd).result).code).toBe(0);
        expect(results(cwd)).toHaveLength(6);
        expect(fake.server.requests.length).toBeGreaterThan(6);
        expect(most).toBe(1);
      } finally {
        await new Promise((resolve) => proxy.close(resolve));
      }
    },
    180_000,
  );

  it.skipIf(noRedis)(
    `a job that times out is retried with backoff, then kept in the dead-letter list; queue status, retry and --redo-errors${SKIP}`,
    async () => {
      nextQueue();
      fake.server.setHandler((): FakeResponse => ({ hang: true, sendHeaders: true }));
      const cwd = setup(1);
      const worker = await startWorker(['--concurrency', '1']);
      const failed = await startBatch(cwd, ['--job-timeout', '1', '--attempts', '2', '--backoff', '0.2'])
        .result;
      expect(failed.code).toBe(2);
      // A job that timed out did not answer; what its attempts cost was not counted: unknown, not $0.
      expect(failed.stdout).toMatch(
        /^Batch: 0 of 1 answered \(0 completed, 1 failed\) in .*, cost unknown\n/,
      );
      expect(results(cwd)).toMatchObject([{ id: 'q1', status: 'failed', error: { code: 'job_failed' } }]);
      expect(results(cwd)[0]?.error?.message).toMatch(/timeout .*dead-letter list: massgen queue status/);
      expect(worker.cli.stdout).toMatch(/started \(attempt 2\)/);

      const admin = (args: string[]) =>
        runCli(['queue', ...args, '--queue', redis.url, '--queue-name', queue], { cwd, timeoutMs: 60_000 });
      const status = await admin(['status', '--json']);
      expect(status.code).toBe(0);
      const parsed = JSON.parse(status.stdout) as {
        counts: { failed: number };
        workers: string[];
        dead: { id: string; batchId: string; attempts: number; reason: string }[];
      };
      expect(parsed.counts.failed).toBe(1);
      expect(parsed.workers).toEqual([worker.name]);
      expect(parsed.dead).toMatchObject([{ batchId: 'q1', attempts: 2 }]);
      expect(parsed.dead[0]?.reason).toMatch(/timeout/);
      const plain = await admin(['status']);
      expect(plain.stdout).toContain(`Queue "${queue}" on ${redis.url}`);
      expect(plain.stdout).toMatch(/Dead-letter list[^\n]*\n {2}b-\w+-q1 \(line id q1\): 2 attempts, /);

      // Retried from the dead-letter list with a longer time limit (the job is signed again), it now
      // completes on the worker, though its first reply takes longer than the old 1 s limit.
      let first = true;
      fake.server.setHandler((body: FakeChatRequestBody): FakeResponse => {
        const slow = first;
        first = false;
        return { ...convergingHandler(body), ...(slow ? { delayMs: 2500 } : {}) };
      });
      const failedBefore = worker.cli.stdout.match(/: failed: /g)?.length ?? 0;
      const unsigned = await runCli(
        ['queue', 'retry', '--job-timeout', '60', '--queue', redis.url, '--queue-name', queue],
        { cwd, timeoutMs: 60_000 },
      );
      expect(unsigned.code).toBe(1);
      expect(unsigned.stderr).toContain(
        'is signed: a new --job-timeout needs the queue secret to sign it again',
      );
      const retried = await runCli(
        [
          'queue',
          'retry',
          parsed.dead[0]?.id ?? '',
          '--job-timeout',
          '60',
          '--queue',
          redis.url,
          '--queue-name',
          queue,
        ],
        { cwd, env: { MASSGEN_QUEUE_SECRET: QUEUE_SECRET }, timeoutMs: 60_000 },
      );
      expect(retried.stdout).toBe(`Retried 1 job: ${parsed.dead[0]?.id} (time limit 60 s)\n`);
      const failures = () => worker.cli.stdout.match(/: failed: /g)?.length ?? 0;
      await waitFor(
        () => /: completed/.test(worker.cli.stdout) || failures() > failedBefore,
        60_000,
        'the retried job to complete (or fail)',
      );
      expect(worker.cli.stdout).toMatch(/: completed/);
      // …and the batch run again with --redo-errors collects its result instead of running it again.
      const requests = fake.server.requests.length;
      const collected = await startBatch(cwd, ['--redo-errors']).result;
      expect(collected.code).toBe(0);
      expect(results(cwd)).toMatchObject([
        { id: 'q1', status: 'completed', worker: worker.name, error: null },
      ]);
      expect(fake.server.requests.length).toBe(requests);
      // The batch removed the job once it had its line; the count of completed jobs still has it.
      expect(JSON.parse((await admin(['status', '--json'])).stdout).counts).toMatchObject({
        completed: 1,
        failed: 0,
      });
      expect(await redis.client().keys(`massgen:q:${queue}:b-*`)).toEqual([]);
      expect((await admin(['drain', '--dead'])).stdout).toBe('Removed 0 waiting jobs and 0 dead ones\n');
    },
    180_000,
  );
});

describe('massgen serve --queue', () => {
  it.skipIf(noRedis)(
    `streams, through the official openai client, a run that a worker executes${SKIP}`,
    async () => {
      nextQueue();
      fake.server.setHandler(convergingHandler);
      const cwd = setup(0, { config: { ui: { logging_enabled: true } } });
      const worker = await startWorker();
      const serve = startCli(
        [
          'serve',
          '--config',
          'team.yaml',
          '--port',
          '0',
          '--api-key',
          'serve-test-key',
          '--queue',
          redis.url,
          '--queue-name',
          queue,
        ],
        { cwd, env: { MASSGEN_QUEUE_SECRET: QUEUE_SECRET }, timeoutMs: 120_000 },
      );
      children.push(serve);
      await waitFor(
        () => /massgen serve: (http:\S+)/.test(serve.stdout) || serve.child.exitCode !== null,
        60_000,
        'serve to listen',
      );
      const baseURL = /massgen serve: (http:\S+)/.exec(serve.stdout)?.[1];
      expect(serve.stdout).toContain(`Runs go to queue "${queue}"`);
      const client = new OpenAI({ baseURL, apiKey: 'serve-test-key', maxRetries: 0 });
      const stream = await client.chat.completions.create({
        model: 'massgen',
        messages: [{ role: 'user', content: 'What is 6 times 7?' }],
        stream: true,
      });
      let content = '';
      let reasoning = '';
      let deltas = 0;
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta as
          { content?: string | null; reasoning_content?: string } | undefined;
        if (delta?.reasoning_content) {
          reasoning += delta.reasoning_content;
          deltas++;
        }
        if (delta?.content) content += delta.content;
      }
      expect(content).toBe(finalAnswerOf('alpha'));
      expect(deltas).toBeGreaterThan(3);
      expect(reasoning).toContain('[beta] ✔ vote → agent1.1 (alpha)');
      // The run happened on the worker: its log folder is there, and the server reports it.
      await waitFor(() => /: completed/.test(worker.cli.stdout), 30_000, 'the worker to report the job');
      const logDir = /: completed, winner alpha in \S+ — (\S+)/.exec(worker.cli.stdout)?.[1] ?? '';
      expect(logDir.startsWith(worker.cwd)).toBe(true);
      await waitFor(() => serve.stderr.includes(logDir), 30_000, 'the access log line');
      expect(await redis.dump()).not.toContain(SECRET);
    },
    180_000,
  );
});

describe('an unreachable Redis', () => {
  it('is one clear error naming the URL, with how to start redis-server', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const cwd = setup(1);
    const expected =
      `massgen: error: cannot reach Redis at ${url}: connection refused\n` +
      `hint: start one with \`redis-server --port ${port}\` (Debian/Ubuntu: apt-get install redis-server), or point --queue at a running server\n`;
    const batch = await runCli(
      ['batch', '--config', 'team.yaml', '--input', 'q.jsonl', '--output', 'r.jsonl', '--queue', url],
      { cwd, timeoutMs: 60_000 },
    );
    expect({ code: batch.code, stderr: batch.stderr }).toEqual({ code: 1, stderr: expected });
    const worker = await runCli(['worker', '--queue', url], {
      cwd,
      env: { MASSGEN_QUEUE_SECRET: QUEUE_SECRET },
      timeoutMs: 60_000,
    });
    expect({ code: worker.code, stderr: worker.stderr }).toEqual({ code: 1, stderr: expected });
    const status = await runCli(['queue', 'status', '--queue', url], { cwd, timeoutMs: 60_000 });
    expect({ code: status.code, stderr: status.stderr }).toEqual({ code: 1, stderr: expected });
    const serve = await runCli(['serve', '--config', 'team.yaml', '--port', '0', '--queue', url], {
      cwd,
      timeoutMs: 60_000,
    });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain(`cannot reach Redis at ${url}: connection refused`);
    expect(serve.stderr).toContain(`redis-server --port ${port}`);
  }, 120_000);
});
