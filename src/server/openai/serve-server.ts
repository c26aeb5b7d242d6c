import { validateConfig } from '../../app/validate.js';
import { ConfigError } from '../../types/errors.js';
import { isLoopbackHost } from '../../util/ip-address.js';
import { newToken } from '../web/auth.js';
import { HostAllowList } from '../web/guard.js';
import { listen } from '../../util/listen.js';
import { createOpenAIApp, type OpenAIAppOptions } from './openai-app.js';

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
  /** Cancels the runs in progress and stops listening. */
  close(): Promise<void>;
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
  const report = validateConfig(served.mainConfigFile, { cwd: options.cwd, env: options.env });
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
  return {
    url: `${listening.origin}/v1`,
    port: listening.port,
    apiKey: apiKey ?? null,
    warnings: report.warnings.map((w) => w.message),
    close: async () => {
      served.close();
      await listening.close();
    },
  };
}
