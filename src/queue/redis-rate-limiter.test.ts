import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { redisServerPath, startRedisServer, type RedisServer } from '../../test/support/redis-server.js';
import { redisLimiters } from './redis-rate-limiter.js';

const noRedis = redisServerPath === null;
const SKIP = noRedis ? ' (skipped: no redis-server)' : '';
const here = path.dirname(fileURLToPath(import.meta.url));
let server: RedisServer | null = null;
const connections: Redis[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!noRedis) server = await startRedisServer();
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
afterAll(async () => {
  for (const c of connections) c.disconnect();
  await server?.stop();
});

/** Limiters as one worker process has them: a connection for commands, one for release notices. */
function workerLimiters(windowMs?: number) {
  const connect = () => {
    const redis = new Redis({ host: '127.0.0.1', port: server?.port ?? 0, maxRetriesPerRequest: null });
    connections.push(redis);
    return redis;
  };
  return redisLimiters({ redis: connect(), subscriber: connect(), ...(windowMs ? { windowMs } : {}) });
}

/**
 * Another worker: a second node process with limiters of its own on the same Redis. It says `ready`,
 * waits for `go` on stdin, then acquires a slot, says `acquired` and releases it. Its command
 * connection is named, so the test can see in Redis when it has asked for a slot.
 */
function otherProcess(name: string, model: string, limits: string, windowMs: number) {
  const script = `
    import { createInterface } from 'node:readline';
    import { Redis } from 'ioredis';
    import { redisLimiters } from ${JSON.stringify(path.join(here, 'redis-rate-limiter.ts'))};
    const connect = (connectionName) =>
      new Redis({ host: '127.0.0.1', port: ${server?.port ?? 0}, connectionName, maxRetriesPerRequest: null });
    const limiter = redisLimiters({ redis: connect(${JSON.stringify(name)}), subscriber: connect('sub'), windowMs: ${windowMs} })(
      ${JSON.stringify(model)}, ${limits});
    console.log('ready ' + process.pid);
    for await (const line of createInterface({ input: process.stdin })) {
      if (line !== 'go') continue;
      const release = await limiter.acquire();
      console.log('acquired');
      release();
      setTimeout(() => process.exit(0), 200);
    }
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: path.join(here, '..', '..'),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const said = (word: string) =>
    new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + 60_000;
      const check = () => {
        if (out.includes(word)) resolve();
        else if (child.exitCode !== null)
          reject(new Error(`the other process exited (${child.exitCode}) before "${word}": ${err}`));
        else if (Date.now() > deadline)
          reject(new Error(`the other process did not say "${word}" within 60 s; it said: ${out} ${err}`));
        else setTimeout(check, 20);
      };
      check();
    });
  return { child, said, output: () => out, go: () => child.stdin?.write('go\n') };
}

/**
 * Resolves once the named connection's last command is the acquire script: the other process has
 * asked for a slot and is waiting. Throws at once if it got one instead.
 */
async function askedForSlot(name: string, other: { output: () => string }): Promise<void> {
  const admin = new Redis({ host: '127.0.0.1', port: server?.port ?? 0 });
  connections.push(admin);
  const deadline = Date.now() + 60_000;
  let seen = '';
  while (Date.now() < deadline) {
    seen =
      ((await admin.client('LIST')) as string).split('\n').find((l) => l.includes(` name=${name} `)) ?? '';
    if (/ cmd=eval /.test(seen)) return;
    if (other.output().includes('acquired'))
      throw new Error('the other process acquired a slot while this one held every slot');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the other process never asked for a slot; its connection: ${seen || 'not connected'}`);
}

describe('rate limits shared through Redis', () => {
  it.skipIf(noRedis)(
    `a concurrency limit holds across two processes: the other waits until this one releases${SKIP}`,
    async () => {
      const other = otherProcess('worker-b', 'shared-model', '{ concurrent: 1 }', 60_000);
      await other.said('ready');
      const release = await workerLimiters()('shared-model', { concurrent: 1 }).acquire();
      other.go();
      await askedForSlot('worker-b', other);
      // It asked while this process holds the only slot: it holds no lease and has not acquired.
      const check = new Redis({ host: '127.0.0.1', port: server?.port ?? 0 });
      connections.push(check);
      expect(await check.zcard('massgen:ratelimit:shared-model:leases')).toBe(1);
      expect(other.output()).not.toContain('acquired');
      release();
      await other.said('acquired');
    },
    90_000,
  );

  it.skipIf(noRedis)(
    `a requests-per-window limit holds across two processes: the other cannot start a third request${SKIP}`,
    async () => {
      // A window far longer than the test: whatever the load, both starts are still in it when the
      // other process asks.
      const windowMs = 600_000;
      const other = otherProcess('worker-c', 'rpm-model', '{ requestsPerMinute: 2 }', windowMs);
      await other.said('ready');
      const limiter = workerLimiters(windowMs)('rpm-model', { requestsPerMinute: 2 });
      (await limiter.acquire())();
      (await limiter.acquire())();
      other.go();
      await askedForSlot('worker-c', other);
      const check = new Redis({ host: '127.0.0.1', port: server?.port ?? 0 });
      connections.push(check);
      expect(await check.zcard('massgen:ratelimit:rpm-model:starts')).toBe(2);
      expect(other.output()).not.toContain('acquired');
      // Once the earlier starts leave the window (removed here, as time would), the other one starts.
      await check.del('massgen:ratelimit:rpm-model:starts');
      await other.said('acquired');
    },
    90_000,
  );

  it.skipIf(noRedis)(`waiting stops when the call is aborted${SKIP}`, async () => {
    const limiter = workerLimiters()('abort-model', { concurrent: 1 });
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    release();
    (await limiter.acquire())();
  });
});
