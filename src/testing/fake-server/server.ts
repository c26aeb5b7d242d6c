import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { FakeRequestView, WireDialect } from './dialect.js';
import type { FakeResponse } from './script.js';

/** One model request the fake server received. */
export interface RecordedRequest<Body = Record<string, unknown>> {
  method: string;
  path: string;
  /** The dialect that answered it. */
  dialect: string;
  /** Lower-cased request headers, without credentials (see {@link RecordedRequest.hasAuthorization}). */
  headers: Record<string, string>;
  /** Whether credentials were sent (`Authorization`, `x-api-key`, `x-goog-api-key`, `api-key` or `?key=`); values are never recorded. */
  hasAuthorization: boolean;
  /** The parsed JSON body, or null when the body was not JSON. */
  body: Body | null;
  /** The vendor-neutral summary, or null when the body was not JSON. */
  view: FakeRequestView | null;
  /** False when nothing was scripted for this request and the server answered 500. */
  scripted: boolean;
  /** True once the client closed the connection before the response ended (a cancelled call). */
  aborted: boolean;
}

/** Scripts a response from the request itself, e.g. routing on `view.system`. */
export type FakeHandler<Body = Record<string, unknown>> = (
  body: Body,
  requestIndex: number,
  view: FakeRequestView,
) => FakeResponse | Promise<FakeResponse>;

export interface FakeServerOptions {
  /** Interface to listen on; defaults to `127.0.0.1` (tests never leave loopback). */
  host?: string;
  /** Port to listen on; defaults to 0 (a free port). */
  port?: number;
  /** Extra GET routes answered with fixed JSON (e.g. `/v1/models`). */
  getRoutes?: Record<string, unknown>;
  /** Extra POST routes answered with JSON computed from the request body (e.g. `/v1/embeddings`). */
  postRoutes?: Record<string, (body: Record<string, unknown>) => unknown>;
  /** Routes that read and answer raw HTTP themselves (media endpoints: uploads, binary answers). */
  routes?: readonly RawRoute[];
}

/** A route answering the raw request itself, e.g. `openAIMediaEndpoint().routes` (media-endpoint.ts). */
export interface RawRoute {
  /** True when this route answers `method path` (path without the query string). */
  matches(method: string, path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
}

/** A scriptable model server speaking one or more vendors' wire formats. */
export interface FakeServer<Body = Record<string, unknown>> {
  /** `http://127.0.0.1:<port>` — add the vendor's path prefix (`/v1`, `/v1beta`) for a `base_url`. */
  readonly origin: string;
  readonly requests: readonly RecordedRequest<Body>[];
  readonly pendingResponses: number;
  /** Queues responses; each request takes the next one before the handler is asked. */
  enqueue(...responses: FakeResponse[]): void;
  /** Answers requests once the queue is empty; `undefined` removes the handler. */
  setHandler(handler: FakeHandler<Body> | undefined): void;
  /** Forgets recorded requests, queued responses and the handler. */
  reset(): void;
  /** Stops listening and destroys open connections, including hanging ones. */
  close(): Promise<void>;
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key', 'x-goog-api-key', 'api-key']);

/**
 * Starts a fake model server on loopback answering each dialect's route from a queue of scripted
 * responses or a handler, and recording every request. Unscripted requests get a loud 500 so a test
 * cannot pass by accident.
 */
export async function startFakeServer<Body = Record<string, unknown>>(
  dialects: readonly WireDialect[],
  options: FakeServerOptions = {},
): Promise<FakeServer<Body>> {
  const requests: RecordedRequest<Body>[] = [];
  const queue: FakeResponse[] = [];
  const sockets = new Set<Socket>();
  let handler: FakeHandler<Body> | undefined;
  let closed = false;

  const handle = async (dialect: WireDialect, req: IncomingMessage, res: ServerResponse, url: URL) => {
    const body = parseJsonObject(await readBody(req));
    const view = body === null ? null : dialect.view(body, url.pathname);
    const record: RecordedRequest<Body> = {
      method: req.method ?? 'POST',
      path: url.pathname,
      dialect: dialect.name,
      ...recordHeaders(req, url),
      body: body as Body | null,
      view,
      scripted: true,
      aborted: false,
    };
    res.on('close', () => {
      if (!res.writableFinished) record.aborted = true;
    });
    const index = requests.push(record) - 1;
    if (body === null || view === null) {
      sendJson(res, 400, dialect.errorBody(400, 'fake server: request body is not a JSON object'));
      return;
    }
    let response: FakeResponse | undefined = queue.shift();
    if (response === undefined && handler !== undefined) {
      try {
        response = await handler(body as Body, index, view);
      } catch (error) {
        record.scripted = false;
        sendJson(res, 500, dialect.errorBody(500, `fake server: handler threw: ${String(error)}`));
        return;
      }
    }
    if (response === undefined) {
      record.scripted = false;
      const message = `fake server has no scripted response for request #${index}: enqueue() one or setHandler()`;
      sendJson(res, 500, dialect.errorBody(500, message));
      return;
    }
    if ('hang' in response) {
      if (response.sendHeaders === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.flushHeaders();
      }
      return;
    }
    if ('status' in response) {
      sendJson(
        res,
        response.status,
        response.body ?? dialect.errorBody(response.status, `fake server: scripted HTTP ${response.status}`),
        response.headers,
      );
      return;
    }
    if (view.stream) await dialect.writeStream(res, body, response);
    else sendJson(res, 200, dialect.json(body, response));
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const raw = options.routes?.find((r) => r.matches(method, url.pathname));
    if (raw) {
      raw.handle(req, res, url).catch((error: unknown) => {
        if (!res.headersSent && !res.destroyed) sendJson(res, 500, { error: { message: String(error) } });
        else res.destroy();
      });
      return;
    }
    const dialect = dialects.find((d) => d.matches(method, url.pathname));
    if (dialect) {
      handle(dialect, req, res, url).catch((error: unknown) => {
        // The client went away mid-response; nothing left to tell it.
        if (!res.headersSent && !res.destroyed) sendJson(res, 500, dialect.errorBody(500, String(error)));
        else res.destroy();
      });
      return;
    }
    const computed = method === 'POST' ? options.postRoutes?.[url.pathname] : undefined;
    if (computed !== undefined) {
      readBody(req)
        .then((text) => {
          const body = parseJsonObject(text);
          if (body === null)
            return sendJson(res, 400, { error: { message: 'fake server: body is not JSON' } });
          sendJson(res, 200, computed(body));
        })
        .catch(() => res.destroy());
      return;
    }
    const fixed = method === 'GET' ? options.getRoutes?.[url.pathname] : undefined;
    if (fixed !== undefined) return sendJson(res, 200, fixed);
    sendJson(res, 404, { error: { message: `fake server: no route for ${method} ${url.pathname}` } });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    origin: `http://${host}:${address.port}`,
    get requests() {
      return requests;
    },
    get pendingResponses() {
      return queue.length;
    },
    enqueue(...responses) {
      queue.push(...responses);
    },
    setHandler(next) {
      handler = next;
    },
    reset() {
      requests.length = 0;
      queue.length = 0;
      handler = undefined;
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Hanging responses never end on their own; destroying their sockets lets close() finish.
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}

function sendJson(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(payload));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJsonObject(raw: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function recordHeaders(
  req: IncomingMessage,
  url: URL,
): { headers: Record<string, string>; hasAuthorization: boolean } {
  const headers: Record<string, string> = {};
  let hasAuthorization = url.searchParams.has('key');
  for (const [name, value] of Object.entries(req.headers)) {
    if (CREDENTIAL_HEADERS.has(name)) {
      hasAuthorization = true;
      continue;
    }
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { headers, hasAuthorization };
}
