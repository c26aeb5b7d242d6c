import { spawn } from 'node:child_process';
import type { Env } from '../app/index.js';
import { describeError } from '../types/errors.js';
import type { Write } from '../app/plain-display.js';
import type { WebServer } from '../server/web/web-server.js';

/** What `massgen --web` needs from the command line. */
export interface WebCommandOptions {
  cwd: string;
  env: Env;
  config?: string;
  host?: string;
  port?: number;
  authToken?: string;
  /** `--no-auth`: no token (loopback only). */
  auth?: boolean;
  /** `--allowed-host`, repeatable. */
  allowedHosts?: readonly string[];
  /** Which of the working folder's configs may be offered (those of a trusted folder). */
  projectConfigs: (file: string) => boolean;
  open: boolean;
  stdout: Write;
  stderr: Write;
  /** Resolves when the server should stop (Ctrl-C). */
  stopped: Promise<void>;
  /** Called once the server listens and its address is printed (`massgen demo --web` starts its run). */
  onListening?: (server: WebServer) => Promise<void>;
}

/** `massgen --web`: starts the server, prints its address, and serves until stopped. Returns the exit code. */
export async function runWebCommand(options: WebCommandOptions): Promise<number> {
  // Loaded only here: a plain run never pays for the HTTP and WebSocket stack.
  const { startWebServer } = await import('../server/web/web-server.js');
  let server;
  try {
    server = await startWebServer({
      cwd: options.cwd,
      env: options.env,
      projectConfigs: options.projectConfigs,
      ...(options.config ? { config: options.config } : {}),
      ...(options.host ? { host: options.host } : {}),
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.authToken === undefined ? {} : { authToken: options.authToken }),
      ...(options.auth === false ? { auth: false } : {}),
      ...(options.allowedHosts?.length ? { allowedHosts: options.allowedHosts } : {}),
    });
  } catch (error) {
    const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    const hint = inUse
      ? 'another process uses that port; pick one with --port'
      : (error as { hint?: string }).hint;
    options.stderr(
      `massgen: error: cannot start the web UI: ${describeError(error)}\n${hint ? `hint: ${hint}\n` : ''}`,
    );
    return 1;
  }
  options.stdout(`massgen web UI: ${server.url}\n`);
  if (server.authToken && !options.authToken)
    options.stdout(
      'The address carries a token made for this server: keep it to yourself (--auth-token TOKEN chooses one).\n',
    );
  if (!server.authToken)
    options.stderr(
      'massgen: warning: --no-auth: every program and user on this machine can start runs and read files through the web UI (web pages still cannot)\n',
    );
  try {
    await options.onListening?.(server);
  } catch (error) {
    options.stderr(`massgen: error: ${describeError(error)}\n`);
    await server.close();
    return 1;
  }
  options.stdout('Press Ctrl-C to stop.\n');
  if (options.open) openBrowser(server.url);
  await options.stopped;
  await server.close();
  return 0;
}

/** Opens `url` in the user's browser, if an opener is there; never fails (the address is printed too). */
export function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const args = process.platform === 'win32' ? ['/c', 'start', '', url] : [url];
  try {
    spawn(command, args, { stdio: 'ignore', detached: true })
      .on('error', () => undefined)
      .unref();
  } catch {
    // No browser opener: the address is printed above.
  }
}
