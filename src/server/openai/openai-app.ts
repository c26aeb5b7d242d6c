import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import {
  ConversationError,
  configChoices,
  conversationToRun,
  isExampleRef,
  resolveExampleRef,
  type Env,
} from '../../app/index.js';
import type { RunResult } from '../../types/run-result.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { sameToken } from '../web/auth.js';
import { answerCompletion } from './chat-completions.js';
import { badRequest, ChatCompletionRequestSchema, messagesOf, WireError } from './chat-wire.js';
import { RunSlots, ServerBusyError } from './run-slots.js';

/** Options of {@link createOpenAIApp}. */
export interface OpenAIAppOptions {
  cwd: string;
  env: Env;
  /** The config `model: "massgen"` runs: a path (relative to `cwd`) or `@examples/NAME`. */
  config: string;
  /** When set, every request must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Runs at once (default 4). */
  maxConcurrent?: number;
  /** Requests waiting for a run slot (default 16); beyond that, `429`. */
  maxQueue?: number;
  /** Write each run's `.massgen/massgen_logs` folder (default: each config's `ui.logging_enabled`). */
  logging?: boolean;
  clock?: Clock;
  /** Called when a run is over (or could not start), e.g. to print an access log line. */
  onRunFinished?: (info: { model: string; result: RunResult | null; error?: unknown }) => void;
}

/** A model id clients may ask for, and the config file it runs. */
export interface ServedModel {
  id: string;
  file: string;
}

/** Request bodies larger than this are refused (long conversations fit easily). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

const configFile = (cwd: string, ref: string) =>
  isExampleRef(ref) ? resolveExampleRef(ref) : path.resolve(cwd, ref);

/**
 * The models the server offers: `massgen` (its own config), then `massgen/<name>` for each YAML config
 * in the working directory and `.massgen/` and each bundled example — the configs `massgen --web`
 * offers, and no others.
 */
export function servedModels(cwd: string, config: string): ServedModel[] {
  const models: ServedModel[] = [{ id: 'massgen', file: configFile(cwd, config) }];
  for (const choice of configChoices(cwd)) {
    const name = isExampleRef(choice.ref)
      ? choice.ref.replace(/^@examples\//, '')
      : choice.ref.replace(/\.ya?ml$/, '');
    const id = `massgen/${name}`;
    if (!models.some((m) => m.id === id)) models.push({ id, file: configFile(cwd, choice.ref) });
  }
  return models;
}

/** The `Authorization: Bearer …` value (compared in constant time by `sameToken`). */
function bearerOf(request: Request): string | null {
  const header = request.headers.get('authorization') ?? '';
  return header.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : null;
}

const errorResponse = (c: Context, error: WireError) =>
  c.json(error.body(), error.status as ContentfulStatusCode, error.headers);

/**
 * `massgen serve` as a web-standard handler: `POST /v1/chat/completions` (JSON or SSE),
 * `GET /v1/models`, `GET /health`. Every error answers in OpenAI's error-body format; nothing a client
 * sends can throw out of `fetch`. `close()` cancels every run in progress.
 */
export function createOpenAIApp(options: OpenAIAppOptions) {
  const { cwd, env } = options;
  const clock = options.clock ?? systemClock;
  const slots = new RunSlots(options.maxConcurrent ?? 4, options.maxQueue ?? 16);
  const inFlight = new Set<AbortController>();
  const app = new Hono();

  app.onError((error, c) =>
    errorResponse(
      c,
      error instanceof WireError
        ? error
        : new WireError(500, `internal error: ${error.message}`, 'server_error', 'internal_error'),
    ),
  );
  app.notFound((c) =>
    errorResponse(
      c,
      new WireError(404, `no route ${c.req.method} ${c.req.path}`, 'invalid_request_error', 'not_found'),
    ),
  );

  app.use('*', async (c, next) => {
    // A web page on another site must not start runs (on the server's keys) through a user's browser.
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== 'null' && new URL(origin).host !== c.req.header('host'))
      throw new WireError(403, 'cross-origin requests are refused', 'invalid_request_error', 'forbidden');
    if (options.apiKey && !sameToken(bearerOf(c.req.raw), options.apiKey)) {
      throw new WireError(
        401,
        'missing or incorrect API key: send the key massgen serve was started with as "Authorization: Bearer KEY"',
        'invalid_request_error',
        'invalid_api_key',
      );
    }
    await next();
  });

  app.get('/health', (c) =>
    c.json({
      status: 'ok',
      runs: { running: slots.running, waiting: slots.waiting },
      limits: { max_concurrent: slots.maxConcurrent, max_queue: slots.maxQueue },
    }),
  );

  const modelObject = (id: string) => ({ id, object: 'model', created: 0, owned_by: 'massgen' });
  app.get('/v1/models', (c) =>
    c.json({ object: 'list', data: servedModels(cwd, options.config).map((m) => modelObject(m.id)) }),
  );
  app.get('/v1/models/*', (c) => {
    const id = decodeURIComponent(c.req.path.slice('/v1/models/'.length));
    if (!servedModels(cwd, options.config).some((m) => m.id === id)) throw unknownModel(id);
    return c.json(modelObject(id));
  });

  app.post(
    '/v1/chat/completions',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new WireError(
          413,
          'the request body is larger than 8 MiB',
          'invalid_request_error',
          'too_large',
        );
      },
    }),
    async (c) => {
      const receivedAt = performance.now();
      const request = await parseRequest(c);
      const model = servedModels(cwd, options.config).find((m) => m.id === request.model);
      if (!model) throw unknownModel(request.model);
      const messages = messagesOf(request);
      try {
        conversationToRun(messages);
      } catch (error) {
        if (error instanceof ConversationError) throw badRequest(error.message, 'messages');
        throw error;
      }

      let release: () => void;
      try {
        release = await slots.acquire(c.req.raw.signal);
      } catch (error) {
        if (error instanceof ServerBusyError) {
          throw new WireError(429, error.message, 'rate_limit_error', 'rate_limit_exceeded', null, {
            'Retry-After': String(error.retryAfterSeconds),
          });
        }
        throw new WireError(499, 'the client closed the request', 'invalid_request_error', 'cancelled');
      }
      const controller = new AbortController();
      const signal = AbortSignal.any([controller.signal, c.req.raw.signal]);
      inFlight.add(controller);
      return answerCompletion({
        head: {
          id: `chatcmpl-${randomUUID()}`,
          created: Math.floor(clock.now() / 1000),
          model: request.model,
        },
        messages,
        stream: request.stream === true,
        includeUsage: request.stream_options?.include_usage === true,
        run: {
          config: model.file,
          cwd,
          env,
          ...(options.logging === undefined ? {} : { logging: options.logging }),
          ...(options.clock ? { clock: options.clock } : {}),
        },
        signal,
        timing: { receivedAt, admittedAt: performance.now() },
        onDone: (result, error) => {
          inFlight.delete(controller);
          release();
          options.onRunFinished?.({ model: model.id, result, ...(error === undefined ? {} : { error }) });
        },
      });
    },
  );

  return {
    /** The file `model: "massgen"` runs. */
    mainConfigFile: configFile(cwd, options.config),
    fetch: (request: Request): Promise<Response> => Promise.resolve(app.fetch(request)),
    slots,
    /** Cancels every run in progress (server shutdown). */
    close(): void {
      for (const controller of inFlight) controller.abort(new Error('the server is shutting down'));
    },
  };
}

function unknownModel(id: string): WireError {
  return new WireError(
    404,
    `the model "${id}" does not exist: GET /v1/models lists "massgen" and the configs this server offers`,
    'invalid_request_error',
    'model_not_found',
    'model',
  );
}

/** The body as a checked request, or a `400` naming the first bad key. */
async function parseRequest(c: Context) {
  if (!(c.req.header('content-type') ?? '').toLowerCase().includes('application/json'))
    throw badRequest('the request body must be JSON, sent with "Content-Type: application/json"');
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw badRequest('the request body is not valid JSON');
  }
  const parsed = ChatCompletionRequestSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = issue?.path.join('.') ?? '';
  if (issue?.code === 'invalid_type' && issue.path.length === 1 && issue.message.includes('undefined'))
    throw badRequest(`missing required parameter: "${key}"`, key);
  throw badRequest(
    `${key === '' ? 'request body' : `"${key}"`}: ${issue?.message ?? 'invalid'}`,
    key || null,
  );
}
