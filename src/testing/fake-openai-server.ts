import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  chatCompletionJson,
  errorBody,
  writeSseResponse,
  type FakeChatRequestBody,
  type FakeResponse,
} from './fake-openai-server-responses.js';

export type {
  FakeChatRequestBody,
  FakeErrorResponse,
  FakeHangResponse,
  FakeResponse,
  FakeTextResponse,
  FakeToolCall,
  FakeToolCallsResponse,
  FakeUsage,
} from './fake-openai-server-responses.js';

/** One request the fake server received on `POST /v1/chat/completions`. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased request headers, without `authorization` (see {@link RecordedRequest.hasAuthorization}). */
  headers: Record<string, string>;
  /** Whether an `Authorization` header was sent; its value is never recorded so keys cannot leak into test output. */
  hasAuthorization: boolean;
  /** The parsed JSON body, or null when the body was not JSON. */
  body: FakeChatRequestBody | null;
  /** False when nothing was scripted for this request and the server answered 500. */
  scripted: boolean;
}

/** Scripts a response from the request itself, e.g. routing on the system message. */
export type FakeResponseHandler = (
  body: FakeChatRequestBody,
  requestIndex: number,
) => FakeResponse | Promise<FakeResponse>;

/** Options of {@link startFakeOpenAIServer}. */
export interface FakeOpenAIServerOptions {
  /** Interface to listen on; defaults to `127.0.0.1` (tests never leave loopback). */
  host?: string;
  /** Port to listen on; defaults to 0 (a free port). */
  port?: number;
  /** Model ids listed by `GET /v1/models`; defaults to `['fake-model']`. */
  models?: string[];
}

/** A scriptable OpenAI Chat Completions server for tests. */
export interface FakeOpenAIServer {
  /** Base URL ending in `/v1`, ready for a `base_url` setting. */
  readonly url: string;
  /** Every chat-completion request received, in order (index = the handler's `requestIndex`). */
  readonly requests: readonly RecordedRequest[];
  /** Number of enqueued responses not yet consumed. */
  readonly pendingResponses: number;
  /** Queues responses; each chat-completion request takes the next one before the handler is asked. */
  enqueue(...responses: FakeResponse[]): void;
  /** Answers requests once the queue is empty; `undefined` removes the handler. */
  setHandler(handler: FakeResponseHandler | undefined): void;
  /** Forgets recorded requests, queued responses and the handler. */
  reset(): void;
  /** Stops listening and destroys open connections, including hanging ones. */
  close(): Promise<void>;
}

const CHAT_PATH = '/v1/chat/completions';
const MODELS_PATH = '/v1/models';

/**
 * Starts a fake OpenAI-compatible server on loopback that answers `POST /v1/chat/completions`
 * (streaming SSE or plain JSON) from a queue of scripted responses or a handler, and records
 * every request. Unscripted requests get a loud 500 so a test cannot pass by accident.
 */
export async function startFakeOpenAIServer(
  options: FakeOpenAIServerOptions = {},
): Promise<FakeOpenAIServer> {
  const models = options.models ?? ['fake-model'];
  const requests: RecordedRequest[] = [];
  const queue: FakeResponse[] = [];
  const sockets = new Set<Socket>();
  let handler: FakeResponseHandler | undefined;
  let closed = false;

  const nextResponse = async (
    body: FakeChatRequestBody,
    index: number,
  ): Promise<FakeResponse | undefined> => {
    const queued = queue.shift();
    if (queued !== undefined) return queued;
    return handler === undefined ? undefined : handler(body, index);
  };

  const handleChat = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    const body = parseJsonObject(raw);
    const record: RecordedRequest = {
      method: req.method ?? 'POST',
      path: req.url ?? CHAT_PATH,
      ...recordHeaders(req),
      body,
      scripted: true,
    };
    const index = requests.push(record) - 1;
    if (body === null) {
      sendJson(
        res,
        400,
        errorBody('fake server: request body is not a JSON object', 'invalid_request_error'),
      );
      return;
    }
    let response: FakeResponse | undefined;
    try {
      response = await nextResponse(body, index);
    } catch (error) {
      record.scripted = false;
      const message = error instanceof Error ? error.message : String(error);
      sendJson(res, 500, errorBody(`fake server: handler threw: ${message}`, 'server_error'));
      return;
    }
    if (response === undefined) {
      record.scripted = false;
      sendJson(
        res,
        500,
        errorBody(
          `fake server has no scripted response for request #${index}: enqueue() one or setHandler()`,
          'server_error',
        ),
      );
      return;
    }
    await respond(res, body, response);
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && path === CHAT_PATH) {
      handleChat(req, res).catch((error: unknown) => {
        // The client went away mid-response; nothing left to tell it.
        if (!res.headersSent && !res.destroyed) sendJson(res, 500, errorBody(String(error), 'server_error'));
        else res.destroy();
      });
      return;
    }
    if (req.method === 'GET' && path === MODELS_PATH) {
      sendJson(res, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'massgen-fake' })),
      });
      return;
    }
    sendJson(
      res,
      404,
      errorBody(`fake server: no route for ${req.method ?? '?'} ${req.url ?? ''}`, 'not_found'),
    );
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
    url: `http://${host}:${address.port}/v1`,
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

async function respond(
  res: ServerResponse,
  body: FakeChatRequestBody,
  response: FakeResponse,
): Promise<void> {
  if ('hang' in response) {
    if (response.sendHeaders === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
    }
    return;
  }
  if ('status' in response) {
    const payload = response.body ?? errorBody(`fake server: scripted HTTP ${response.status}`, 'fake_error');
    sendJson(res, response.status, payload, response.headers);
    return;
  }
  if (body.stream === true) {
    await writeSseResponse(res, body, response);
    return;
  }
  sendJson(res, 200, chatCompletionJson(body, response));
}

function sendJson(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJsonObject(raw: string): FakeChatRequestBody | null {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as FakeChatRequestBody)
      : null;
  } catch {
    return null;
  }
}

function recordHeaders(req: IncomingMessage): Pick<RecordedRequest, 'headers' | 'hasAuthorization'> {
  const headers: Record<string, string> = {};
  let hasAuthorization = false;
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === 'authorization') {
      hasAuthorization = true;
      continue;
    }
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { headers, hasAuthorization };
}
