import { Redis, type RedisOptions } from 'ioredis';
import { ConfigError } from '../types/errors.js';
import { errorCode } from '../util/guards.js';

/** Where the queue lives: the Redis server, and the queue's name on it. */
export interface QueueLocation {
  /** The URL as given, its password masked: for messages. */
  readonly label: string;
  readonly host: string;
  readonly port: number;
  /** ioredis options for this server (no retry policy: each user sets its own). */
  readonly redis: RedisOptions;
  /** The queue's name (several batches or servers can share a Redis with different names). */
  readonly name: string;
}

/** Queue names: what BullMQ accepts in a key, and readable in `massgen queue status`. */
const QUEUE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The URL with its password replaced by `***`. */
const masked = (url: URL) => {
  const copy = new URL(url.href);
  if (copy.password) copy.password = '***';
  return copy.href.replace(/\/$/, '');
};

/**
 * Reads `--queue redis://[user:password@]host[:port][/db]` (or `rediss://` for TLS) and `--queue-name`.
 *
 * @throws {ConfigError} for anything else.
 */
export function parseQueueLocation(url: string, name = 'massgen'): QueueLocation {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    parsed = new URL('invalid://');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new ConfigError(`--queue expects a Redis URL like redis://127.0.0.1:6379, got "${url}"`, {
      hint: 'redis://HOST:PORT, redis://:PASSWORD@HOST:PORT/DB, or rediss://… for TLS',
    });
  }
  if (!QUEUE_NAME.test(name))
    throw new ConfigError(`--queue-name "${name}": use 1–64 letters, digits, "_", "." or "-"`);
  const port = parsed.port === '' ? 6379 : Number(parsed.port);
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db))
    throw new ConfigError(`--queue ${masked(parsed)}: the path must be a database number, like /0`);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1';
  const redis: RedisOptions = {
    host,
    port,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(db === '' ? {} : { db: Number(db) }),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
  return { label: masked(parsed), host, port, redis, name };
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** An error that only says Redis cannot be reached (a watch on the connection tells that once). */
export function isConnectionError(error: unknown): boolean {
  const code = errorCode(error);
  if (code !== undefined && CONNECTION_CODES.has(code)) return true;
  const message = error instanceof Error ? error.message : String(error);
  return /Connection is closed|Stream isn't writeable|connect ETIMEDOUT|ECONNREFUSED/.test(message);
}

/** Why a connection failed, in words. */
export function connectionProblem(error: unknown): string {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'ETIMEDOUT' || /timed? ?out/i.test(message)) return 'timed out';
  if (/NOAUTH|WRONGPASS|invalid password|invalid username/i.test(message)) return 'authentication failed';
  return message;
}

/**
 * Connects once to check the server is there, so a wrong URL is one clear error rather than a process
 * waiting forever for Redis to appear. Resolves with the connected client (the caller owns it).
 *
 * @throws {ConfigError} naming the URL, with a hint on starting redis-server.
 */
export async function connectRedis(location: QueueLocation, options: RedisOptions = {}): Promise<Redis> {
  const client = new Redis({
    ...location.redis,
    lazyConnect: true,
    connectTimeout: 5_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    ...options,
  });
  // The socket's own error (ECONNREFUSED, …) arrives here; connect() then only says it closed.
  let socketError: unknown;
  client.on('error', (error) => (socketError ??= error));
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    const why = connectionProblem(socketError ?? error);
    throw new ConfigError(`cannot reach Redis at ${location.label}: ${why}`, {
      hint:
        why === 'authentication failed'
          ? `put the password in the URL: redis://:PASSWORD@${location.host}:${location.port}`
          : `start one with \`redis-server --port ${location.port}\` (Debian/Ubuntu: apt-get install redis-server), or point --queue at a running server`,
    });
  }
  return client;
}

/**
 * ioredis options for long-lived connections: reconnect until `ending()` says the process is shutting
 * down (then a client still trying gives up, its waiting commands fail and nothing holds the process),
 * never fail a command for waiting. Every client made from these options — BullMQ makes its own —
 * follows the same flag.
 */
export function durableOptions(location: QueueLocation, ending: () => boolean = () => false): RedisOptions {
  return {
    ...location.redis,
    maxRetriesPerRequest: null,
    retryStrategy: (times) => (ending() ? null : Math.min(times * 200, 5_000)),
  };
}
