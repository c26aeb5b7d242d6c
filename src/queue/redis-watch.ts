import type { Redis } from 'ioredis';
import { connectionProblem, type QueueLocation } from './redis-connection.js';

/** How often a lasting outage is said again. */
const REPEAT_MS = 30_000;

/** A long-lived connection's view of Redis: whether it is reachable, said when that changes. */
export interface RedisWatch {
  /** When Redis became unreachable (ms since the epoch), or null while it is reachable. */
  readonly downSince: number | null;
  stop(): void;
}

const clockTime = (ms: number) => new Date(ms).toTimeString().slice(0, 8);
const lasting = (ms: number) => {
  const seconds = Math.round(ms / 1000);
  return seconds < 60
    ? `${seconds}s`
    : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
};

/**
 * Watches one reconnecting client (ioredis retries forever, which is right for a queue that outlives
 * a Redis restart, but silent): says once when Redis becomes unreachable and then every 30 s while it
 * stays so, and once when it is back. `onBack` follows every reconnect, said or not (a restart can be
 * quicker than the first failed attempt). The URL is the masked label, never the password.
 */
export function watchRedis(
  client: Redis,
  location: QueueLocation,
  options: { say: (line: string) => void; onBack?: () => void; repeatMs?: number },
): RedisWatch {
  let downSince: number | null = null;
  let why = '';
  let repeat: NodeJS.Timeout | null = null;
  let dropped = false;
  const unreachable = () =>
    options.say(
      `Redis at ${location.label} unreachable since ${clockTime(downSince ?? Date.now())} (${why}${
        downSince !== null && Date.now() - downSince >= 1000 ? `, ${lasting(Date.now() - downSince)} ago` : ''
      }) — waiting for it to come back`,
    );
  const onError = (error: unknown) => {
    if (downSince !== null) return;
    downSince = Date.now();
    why = connectionProblem(error);
    unreachable();
    repeat = setInterval(unreachable, options.repeatMs ?? REPEAT_MS);
    repeat.unref();
  };
  const onClose = () => (dropped = true);
  const onReady = () => {
    if (downSince !== null)
      options.say(`Redis at ${location.label} reachable again after ${lasting(Date.now() - downSince)}`);
    downSince = null;
    if (repeat) clearInterval(repeat);
    repeat = null;
    if (dropped) options.onBack?.();
    dropped = false;
  };
  client.on('error', onError);
  client.on('close', onClose);
  client.on('ready', onReady);
  return {
    get downSince() {
      return downSince;
    },
    stop() {
      if (repeat) clearInterval(repeat);
      client.off('error', onError);
      client.off('close', onClose);
      client.off('ready', onReady);
    },
  };
}
