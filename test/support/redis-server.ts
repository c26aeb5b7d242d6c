/**
 * A private redis-server for a test file: started on a free loopback port with no persistence, stopped
 * afterwards. Tests that need it skip (with the reason) when Debian's redis-server is not installed;
 * `.ci/run` installs it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { realClockEnv } from './real-clock-env.js';

const CANDIDATES = ['/usr/bin/redis-server', '/usr/local/bin/redis-server', '/usr/sbin/redis-server'];

/** The redis-server binary, or null when none is installed. */
export const redisServerPath: string | null = CANDIDATES.find((file) => existsSync(file)) ?? null;

export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` (`redis://:<password>@…` with a password) */
  readonly url: string;
  /** The server's process id (a test may kill it, as a crash would). */
  readonly pid: number;
  /** A client for the test's own checks (closed with the server). */
  client(): Redis;
  /** Every key and value in the server, as text (for "no secret is in Redis"). */
  dump(): Promise<string>;
  /** Kills the server with SIGKILL (a crash) and resolves once it is gone; the port stays free. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty (no persistence), after `kill`. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  /** `--requirepass`: clients must authenticate. */
  password?: string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function startOn(port: number, password?: string): Promise<ChildProcess | null> {
  const child = spawn(
    redisServerPath as string,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      ...(password === undefined ? [] : ['--requirepass', password]),
    ],
    // redis-server is infrastructure here: it gets the real clock (real-clock-env.ts).
    { stdio: ['ignore', 'pipe', 'pipe'], env: realClockEnv() },
  );
  return new Promise((resolve) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) resolve(child);
      else if (/Address already in use|bind: /i.test(out)) {
        child.kill('SIGKILL');
        resolve(null);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', () => resolve(null));
  });
}

/** Starts a redis-server on a free port (another one when a race takes the port first). */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  if (!redisServerPath) throw new Error('redis-server is not installed');
  const { password } = options;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    let child = await startOn(port, password);
    if (!child) continue;
    const clients: Redis[] = [];
    const client = () => {
      const redis = new Redis({
        host: '127.0.0.1',
        port,
        maxRetriesPerRequest: 1,
        ...(password === undefined ? {} : { password }),
      });
      redis.on('error', () => {});
      clients.push(redis);
      return redis;
    };
    const kill = async () => {
      const current = child as ChildProcess;
      if (current.exitCode !== null || current.signalCode !== null) return;
      const exited = new Promise((resolve) => current.once('exit', resolve));
      current.kill('SIGKILL');
      await exited;
    };
    return {
      port,
      url: `redis://${password === undefined ? '' : `:${encodeURIComponent(password)}@`}127.0.0.1:${port}`,
      get pid() {
        return (child as ChildProcess).pid ?? 0;
      },
      client,
      kill,
      async restart() {
        await kill();
        // The same port, so every client reconnects to it; a few tries in case it is still held.
        for (let again = 0; again < 20; again++) {
          const next = await startOn(port, password);
          if (next) {
            child = next;
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        throw new Error(`could not start redis-server again on port ${port}`);
      },
      async dump() {
        const redis = client();
        const parts: string[] = [];
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
          cursor = next;
          for (const key of keys) {
            parts.push(key);
            const type = await redis.type(key);
            if (type === 'string') parts.push((await redis.getBuffer(key))?.toString('latin1') ?? '');
            else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
            else if (type === 'list') parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
            else if (type === 'set') parts.push(JSON.stringify(await redis.smembers(key)));
            else if (type === 'zset')
              parts.push(JSON.stringify(await redis.zrange(key, 0, -1, 'WITHSCORES')));
            else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
          }
        } while (cursor !== '0');
        return parts.join('\n');
      },
      async stop() {
        for (const redis of clients) redis.disconnect();
        await kill();
      },
    };
  }
  throw new Error('could not start redis-server on a free port');
}
