import { validateConfig } from '../../app/validate.js';
import { ConfigError } from '../../types/errors.js';
import { isLoopbackHost } from '../../util/ip-address.js';
import { newToken } from '../web/auth.js';
import { HostAllowList } from '../web/guard.js';
import type { Server } from 'node:http';
import { listen } from '../../util/listen.js';
import { createOpenAIApp, type OpenAIAppOptions } from './openai-app.js';
import { OpenResponses } from './open-responses.js';

/** How long a shutdown waits for the runs in flight by default (`massgen serve --shutdown-timeout`). */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 5_000;
/** After the runs, how long the last answers get to leave before every connection is closed. */
const FLUSH_GRACE_MS = 1_000;

/** Options of {@link startServeServer}. */
export interface ServeServerOptions extends OpenAIAppOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 4000; 0 picks a free port. */
  port?: number;
  /**
   * `false` (`--no-auth`): no key, on loopback only. Default true: without `apiKey` one is generated
   * (read it from {@link ServeServer.apiKey}).
   */
  auth?: boolean;
}

/** A running `massgen serve`. */
export interface ServeServer {
  /** The base URL for OpenAI clients, ending in `/v1`. */
  readonly url: string;
  readonly port: number;
  /** The key every request must carry as `Authorization: Bearer KEY` (given or generated), or null with `auth: false`. */
  readonly apiKey: string | null;
  /** Problems of this environment that will make runs fail (an unset API key), one line each. */
  readonly warnings: string[];
  /** Runs in progress and requests waiting for one, now. */
  readonly runs: { running: number; waiting: number };
  /**
   * Stops, gracefully and within a bound: new requests get `503` (and `/health` says `stopping`), every
   * run in flight is cancelled and its client answered with a `cancelled` error once the run's logs are
   * closed. Runs still going after `timeoutMs` (default {@link DEFAULT_SHUTDOWN_TIMEOUT_MS}) have their
   * logs closed synchronously as cancelled and their clients answered at once. Then every connection is
   * closed. Calls after the first return the first one's promise.
   */
  close(options?: { timeoutMs?: number }): Promise<ShutdownReport>;
  /** For a process that must exit now (a second Ctrl-C): closes every run's logs synchronously, as cancelled. */
  terminateSync(message: string): void;
}

/** What a {@link ServeServer.close} did. */
export interface ShutdownReport {
  /** Runs in flight (and requests waiting for one) when the shutdown began: each was cancelled. */
  cancelled: number;
  /** Of those, the runs not over within the bound: logs closed synchronously, clients answered at once. */
  forced: number;
}

/** Resolves true once `promise` settles, false after `ms` (the timer never holds the process open longer). */
function within(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Starts the OpenAI-compatible server on `@hono/node-server`. The config is checked first, so a bad one
 * fails here rather than on the first request. A key is required on every address (generated when not
 * given, as `--web` does with its token) unless `auth: false`, which only loopback allows; `Host`,
 * `Origin` and the JSON content type are checked so that no web page can use the server.
 *
 * @throws {ConfigError} for an invalid config, an empty key, `auth: false` beyond loopback, a bad allowed host.
 */
export async function startServeServer(options: ServeServerOptions): Promise<ServeServer> {
  const host = options.host ?? '127.0.0.1';
  if (options.apiKey !== undefined && options.apiKey.trim() === '')
    throw new ConfigError('the API key is empty', {
      hint: 'give --api-key KEY, or leave it out to have one generated',
    });
  if (options.auth === false && !isLoopbackHost(host)) {
    throw new ConfigError(`--no-auth is refused on ${host}: anyone who can reach it could run your agents`, {
      hint: 'drop --no-auth (a key is generated, or pass --api-key KEY), or listen on 127.0.0.1',
    });
  }
  const apiKey = options.auth === false ? undefined : (options.apiKey ?? newToken());
  const hosts = new HostAllowList(host, options.allowedHosts ?? []);
  const appOptions: OpenAIAppOptions = { ...options };
  delete appOptions.apiKey;
  if (apiKey) appOptions.apiKey = apiKey;
  const served = createOpenAIApp(appOptions, { hosts });
  const report = await validateConfig(served.mainConfigFile, { cwd: options.cwd, env: options.env });
  if (!report.valid) {
    const [first, ...rest] = report.errors;
    const more = rest.length > 0 ? ` (and ${rest.length} more: massgen --validate ${report.file})` : '';
    const message = first?.message ?? 'not a valid config';
    const where = message.includes(report.file) ? '' : `${report.file}: `;
    throw new ConfigError(`${where}${message}${more}`, {
      ...(first?.hint ? { hint: first.hint } : {}),
    });
  }
  await served.ready();
  const listening = await listen(served.fetch, host, options.port ?? 4000);
  hosts.port = listening.port;
  const server = listening.server as Server;
  const responses = new OpenResponses(server);
  const shutdown = async (timeoutMs: number): Promise<ShutdownReport> => {
    // Still listening while the runs end: a request now gets a 503 rather than a refused connection.
    const cancelled = served.close();
    const forced = (await within(served.idle(), timeoutMs)) ? 0 : served.force();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await within(responses.idle(), FLUSH_GRACE_MS);
    server.closeAllConnections();
    await closed;
    return { cancelled, forced };
  };
  let closing: Promise<ShutdownReport> | null = null;
  return {
    url: `${listening.origin}/v1`,
    port: listening.port,
    apiKey: apiKey ?? null,
    warnings: report.warnings.map((w) => w.message),
    get runs() {
      return { running: served.slots.running, waiting: served.slots.waiting };
    },
    close: (closeOptions = {}) =>
      (closing ??= shutdown(closeOptions.timeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS)),
    terminateSync: (message) => served.terminateSync(message),
  };
}
