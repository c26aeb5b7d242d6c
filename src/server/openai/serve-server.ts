import { validateConfig } from '../../app/index.js';
import { ConfigError } from '../../types/errors.js';
import { isLoopbackHost } from '../web/auth.js';
import { listen } from '../../util/listen.js';
import { createOpenAIApp, type OpenAIAppOptions } from './openai-app.js';

/** Options of {@link startServeServer}. */
export interface ServeServerOptions extends OpenAIAppOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 4000; 0 picks a free port. */
  port?: number;
}

/** A running `massgen serve`. */
export interface ServeServer {
  /** The base URL for OpenAI clients, ending in `/v1`. */
  readonly url: string;
  readonly port: number;
  /** Problems of this environment that will make runs fail (an unset API key), one line each. */
  readonly warnings: string[];
  /** Cancels the runs in progress and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts the OpenAI-compatible server on `@hono/node-server`. The config is checked first, so a bad one
 * fails here rather than on the first request; a host beyond loopback needs an API key.
 *
 * @throws {ConfigError} for an invalid config, or a non-loopback host without a key.
 */
export async function startServeServer(options: ServeServerOptions): Promise<ServeServer> {
  const host = options.host ?? '127.0.0.1';
  if (options.apiKey !== undefined && options.apiKey.trim() === '')
    throw new ConfigError('the API key is empty', {
      hint: 'give --api-key KEY, or leave it out on loopback',
    });
  if (!isLoopbackHost(host) && !options.apiKey) {
    throw new ConfigError(
      `massgen serve on ${host} needs an API key: anyone who can reach it could run your agents`,
      {
        hint: 'pass --api-key KEY (or set MASSGEN_SERVER_API_KEY), or listen on 127.0.0.1',
      },
    );
  }
  const served = createOpenAIApp(options);
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
  const listening = await listen(served.fetch, host, options.port ?? 4000);
  return {
    url: `${listening.origin}/v1`,
    port: listening.port,
    warnings: report.warnings.map((w) => w.message),
    close: async () => {
      served.close();
      await listening.close();
    },
  };
}
