import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { ConfigError } from '../../types/errors.js';
import type { RunEvent } from '../../types/events.js';
import { isLoopbackHost } from '../../util/ip-address.js';
import { anySameToken, cookieName, newToken, tokensFromUpgrade } from './auth.js';
import { checkRequest, HostAllowList } from './guard.js';
import { DONE, UnknownRunError } from './run-hub.js';
import { createWebApp, type WebAppOptions } from './web-app.js';
import { listen } from '../../util/listen.js';

/** Options of {@link startWebServer}. */
export interface WebServerOptions extends Omit<WebAppOptions, 'authToken' | 'hosts'> {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The token every request must carry (default: one is generated). */
  authToken?: string;
  /** `false` (`--no-auth`): no token, on loopback only. Default true. */
  auth?: boolean;
  /** More `Host` names to answer to (`--allowed-host`), beside the loopback names and the bound address. */
  allowedHosts?: readonly string[];
}

/** A running `massgen --web` server. */
export interface WebServer {
  /** The address to open, with `?token=` when a token is required. */
  readonly url: string;
  readonly port: number;
  readonly authToken: string | null;
  close(): Promise<void>;
}

/** Clients send nothing over the socket but its close: anything larger than this closes it. */
const MAX_FRAME_BYTES = 4 * 1024;

/** What goes down the socket: each event with its run, then `done`, or an error. */
export type SocketMessage =
  | { type: 'event'; runId: string; event: RunEvent }
  | { type: 'done'; runId: string }
  | { type: 'error'; message: string };

/**
 * Starts the web UI: the Hono app on `@hono/node-server`, and a WebSocket at `/ws?run=ID&after=SEQ` that
 * replays a run's events after `SEQ` and then follows it live. Binds 127.0.0.1 unless told otherwise.
 * Every request and upgrade needs the token (generated unless given; `auth: false` turns it off on
 * loopback), an allowed `Host`, and no foreign `Origin` (see `guard.ts`).
 *
 * @throws {ConfigError} for an empty token, `auth: false` beyond loopback, or a bad allowed host.
 */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const host = options.host ?? '127.0.0.1';
  if (options.authToken !== undefined && options.authToken.trim() === '') {
    throw new ConfigError('--auth-token is empty', {
      hint: 'give a token, or omit it to have one generated',
    });
  }
  if (options.auth === false && !isLoopbackHost(host)) {
    throw new ConfigError(`--no-auth is refused on ${host}: anyone who can reach it could run your agents`, {
      hint: 'drop --no-auth (a token is generated), or listen on 127.0.0.1',
    });
  }
  const authToken = options.auth === false ? undefined : (options.authToken ?? newToken());
  const hosts = new HostAllowList(host, options.allowedHosts ?? []);
  const { app, hub } = createWebApp({ ...options, hosts, ...(authToken ? { authToken } : {}) });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });

  const listening = await listen(app.fetch, host, options.port ?? 8000);
  const { server } = listening;
  hosts.port = listening.port;

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A client that resets the connection mid-handshake must not take the server down.
    socket.on('error', () => socket.destroy());
    const refuse = (status: number, text: string, message: string) => {
      const body = `${message}\n`;
      socket.end(
        `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    };
    try {
      const url = new URL(request.url ?? '/', 'http://localhost');
      if (url.pathname !== '/ws') return refuse(404, 'Not Found', 'the only WebSocket is /ws?run=ID');
      // Host, Origin and Sec-Fetch-Site before anything else: a page elsewhere must not read runs.
      const refusal = checkRequest(
        {
          method: 'GET',
          host: request.headers.host,
          // An absolute-form target (`GET http://name/ws`) names a host of its own: it is checked too.
          urlHost: /^[a-z][a-z0-9+.-]*:\/\//i.test(request.url ?? '') ? url.host : request.headers.host,
          origin: request.headers.origin,
          secFetchSite: header(request.headers['sec-fetch-site']),
          contentType: undefined,
          strictSite: true,
        },
        hosts,
        'massgen --web',
      );
      if (refusal) return refuse(refusal.status, 'Forbidden', refusal.message);
      if (authToken && !anySameToken(tokensFromUpgrade(request, cookieName(hosts.port)), authToken))
        return refuse(401, 'Unauthorized', 'massgen --web needs its token: open the address it printed');
      sockets.handleUpgrade(request, socket, head, (ws) => follow(ws, url));
    } catch {
      refuse(400, 'Bad Request', 'not a WebSocket request massgen --web understands');
    }
  });

  const follow = (ws: WebSocket, url: URL): void => {
    // A frame over the limit or with bad UTF-8 closes this socket (ws sends the close code), nothing else.
    ws.on('error', () => ws.terminate());
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
      await hub.close();
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      await listening.close();
    },
  };
}

const header = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(', ') : value;
