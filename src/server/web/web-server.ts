import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { ConfigError } from '../../types/errors.js';
import type { RunEvent } from '../../types/events.js';
import { isLoopbackHost, newToken, sameToken, tokenFromUpgrade } from './auth.js';
import { DONE, UnknownRunError } from './run-hub.js';
import { createWebApp, type WebAppOptions } from './web-app.js';
import { listen } from '../../util/listen.js';

/** Options of {@link startWebServer}. */
export interface WebServerOptions extends Omit<WebAppOptions, 'authToken'> {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  authToken?: string;
}

/** A running `massgen --web` server. */
export interface WebServer {
  /** The address to open, with `?token=` when a token is required. */
  readonly url: string;
  readonly port: number;
  readonly authToken: string | null;
  close(): Promise<void>;
}

/** What goes down the socket: each event with its run, then `done`, or an error. */
export type SocketMessage =
  | { type: 'event'; runId: string; event: RunEvent }
  | { type: 'done'; runId: string }
  | { type: 'error'; message: string };

/**
 * Starts the web UI: the Hono app on `@hono/node-server`, and a WebSocket at `/ws?run=ID&after=SEQ` that
 * replays a run's events after `SEQ` and then follows it live. Binds 127.0.0.1 unless told otherwise;
 * any other host requires a token (generated when not given). Cross-origin upgrades are refused.
 *
 * @throws {ConfigError} for a non-loopback host with an empty token.
 */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const host = options.host ?? '127.0.0.1';
  const authToken = options.authToken ?? (isLoopbackHost(host) ? undefined : newToken());
  if (authToken !== undefined && authToken.trim() === '') {
    throw new ConfigError('--auth-token is empty', {
      hint: 'give a token, or omit it to have one generated',
    });
  }
  const { app, hub } = createWebApp({ ...options, ...(authToken ? { authToken } : {}) });
  const sockets = new WebSocketServer({ noServer: true });

  const listening = await listen(app.fetch, host, options.port ?? 8000);
  const { server } = listening;

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refuse = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\n\r\n`);
    };
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== '/ws') return refuse(404, 'Not Found');
    // A page from another site must not drive this server through the user's browser.
    const origin = request.headers.origin;
    if (origin !== undefined && new URL(origin).host !== request.headers.host)
      return refuse(403, 'Forbidden');
    if (authToken && !sameToken(tokenFromUpgrade(request), authToken)) return refuse(401, 'Unauthorized');
    sockets.handleUpgrade(request, socket, head, (ws) => follow(ws, url));
  });

  const follow = (ws: WebSocket, url: URL): void => {
    const runId = url.searchParams.get('run') ?? '';
    const after = Number(url.searchParams.get('after') ?? '-1');
    const send = (message: SocketMessage) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    try {
      const unsubscribe = hub.subscribe(runId, Number.isFinite(after) ? after : -1, (event) => {
        if (event === DONE) send({ type: 'done', runId });
        else send({ type: 'event', runId, event });
      });
      ws.on('close', unsubscribe);
    } catch (error) {
      send({ type: 'error', message: error instanceof UnknownRunError ? error.message : String(error) });
      ws.close();
    }
  };

  const url = `${listening.origin}/${authToken ? `?token=${authToken}` : ''}`;
  return {
    url,
    port: listening.port,
    authToken: authToken ?? null,
    close: async () => {
      hub.close();
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      await listening.close();
    },
  };
}
