import { randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ConversationError, conversationToRun, type Env, type RunLauncher } from '../../app/index.js';
import type { RunResult } from '../../types/run-result.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { sameToken } from '../web/auth.js';
import { bearerToken, HostAllowList, requestGuard, safeDecode } from '../web/guard.js';
import { answerCompletion } from './chat-completions.js';
import { badRequest, ChatCompletionRequestSchema, messagesOf, WireError } from './chat-wire.js';
import { configFile, ModelCatalog, type ServedModel } from './model-catalog.js';
import { RunSlots, ServerBusyError } from './run-slots.js';
import { REQUEST_MEDIA_LIMITS } from '../../app/request-media.js';

/** Options of {@link createOpenAIApp}. */
export interface OpenAIAppOptions {
  cwd: string;
  env: Env;
  /** The config `model: "massgen"` runs: a path (relative to `cwd`) or `@examples/NAME`. */
  config: string;
  /**
   * Which of the working folder's own configs (`*.yaml` there and in `.massgen/`) are offered as
   * `massgen/<name>` models, by absolute path (default: all). The CLI allows those of a trusted folder.
   */
  projectConfigs?: (file: string) => boolean;
  /**
   * When set, every request but `GET /health` must carry `Authorization: Bearer <apiKey>`. Unset, the
   * handler asks for no key (`startServeServer` generates one; a handler you mount is yours to guard).
   */
  apiKey?: string;
  /**
   * `Host` names answered beside the loopback names (`localhost`, `127.0.0.1`, `[::1]`): the name your
   * clients use when the handler is mounted behind another address. Others get `403`.
   */
  allowedHosts?: readonly string[];
  /** Runs at once (default 4). */
  maxConcurrent?: number;
  /** Requests waiting for a run slot (default 16); beyond that, `429`. */
  maxQueue?: number;
  /** Write each run's `.massgen/massgen_logs` folder (default: each config's `ui.logging_enabled`). */
  logging?: boolean;
  clock?: Clock;
  /** Called when a run is over (or could not start), e.g. to print an access log line. */
  onRunFinished?: (info: { model: string; result: RunResult | null; error?: unknown }) => void;
  /** Runs elsewhere instead of in this process, e.g. on queue workers (`massgen serve --queue`). */
  launch?: RunLauncher;
  /** Milliseconds between SSE keep-alive comments on an idle stream (default 15 s). */
  keepAliveMs?: number;
}

/**
 * Request bodies larger than this are refused: long conversations fit easily, and so does inline media
 * up to its own bound (base64 is 4/3 of the bytes).
 */
const MAX_BODY_BYTES =
  Math.ceil(((REQUEST_MEDIA_LIMITS.maxTotalBytes * 4) / 3 + 8 * 2 ** 20) / 2 ** 20) * 2 ** 20;

const errorResponse = (c: Context, error: WireError) =>
  c.json(error.body(), error.status as ContentfulStatusCode, error.headers);

/**
 * `massgen serve` as a web-standard handler: `POST /v1/chat/completions` (JSON or SSE),
 * `GET /v1/models`, `GET /health`. Every error answers in OpenAI's error-body format; nothing a client
 * sends can throw out of `fetch`. `close()` cancels every run in progress.
 */
export function createOpenAIApp(
  options: OpenAIAppOptions,
  /** For `startServeServer` and tests: the Host allow-list of the bound server, a hook per listing of the configs. */
  internal: { hosts?: HostAllowList; onModelsListed?: (models: readonly ServedModel[]) => void } = {},
) {
  const { cwd, env } = options;
  const clock = options.clock ?? systemClock;
  const slots = new RunSlots(options.maxConcurrent ?? 4, options.maxQueue ?? 16);
  const inFlight = new Set<AbortController>();
  const hosts = internal.hosts ?? new HostAllowList(undefined, options.allowedHosts ?? []);
  const mainConfigFile = configFile(cwd, options.config);
  const catalog = new ModelCatalog(
    cwd,
    { id: 'massgen', file: mainConfigFile },
    internal.onModelsListed,
    options.projectConfigs,
  );
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
      new WireError(
        404,
        `no route ${c.req.method} ${c.req.path.slice(0, 100)}: the routes are /v1/chat/completions, /v1/models and /health`,
        'invalid_request_error',
        'not_found',
      ),
    ),
  );

  app.use('*', secureHeaders({ strictTransportSecurity: false, xFrameOptions: 'DENY' }));
  // No web page may use this server (on the server's keys) through a user's browser: Host, Origin,
  // Sec-Fetch-Site and the JSON content type are checked first; preflights are refused with them.
  app.use(
    '*',
    requestGuard({
      hosts,
      server: 'massgen serve',
      strictSite: () => true,
      refuse: (_c, refusal) => {
        throw new WireError(
          refusal.status,
          refusal.message,
          'invalid_request_error',
          refusal.status === 415 ? 'unsupported_media_type' : 'forbidden',
        );
      },
    }),
  );
  const authorized = (request: Request) =>
    !options.apiKey || sameToken(bearerToken(request.headers.get('authorization')), options.apiKey);
  app.use('*', async (c, next) => {
    // Up or not is anyone's to know (as with vLLM and LiteLLM); the rest needs the key.
    if (c.req.path !== '/health' && !authorized(c.req.raw)) {
      throw new WireError(
        401,
        'missing or incorrect API key: send the key massgen serve printed (or was given) as "Authorization: Bearer KEY"',
        'invalid_request_error',
        'invalid_api_key',
      );
    }
    await next();
  });

  app.get('/health', (c) =>
    authorized(c.req.raw)
      ? c.json({
          status: 'ok',
          runs: { running: slots.running, waiting: slots.waiting },
          limits: { max_concurrent: slots.maxConcurrent, max_queue: slots.maxQueue },
        })
      : c.json({ status: 'ok' }),
  );

  const modelObject = (id: string) => ({ id, object: 'model', created: 0, owned_by: 'massgen' });
  app.get('/v1/models', async (c) =>
    c.json({ object: 'list', data: (await catalog.list()).map((m) => modelObject(m.id)) }),
  );
  app.get('/v1/models/*', async (c) => {
    const raw = new URL(c.req.url).pathname.slice('/v1/models/'.length);
    const id = safeDecode(raw);
    if (id === null)
      throw badRequest(
        `the model id "${raw.slice(0, 100)}" is not valid percent-encoding: encode it with encodeURIComponent`,
      );
    if (!(await catalog.find(id))) throw unknownModel(id);
    return c.json(modelObject(id));
  });

  const busy = () =>
    new WireError(
      429,
      'the server is at its limit of runs in progress and waiting: retry later',
      'rate_limit_error',
      'rate_limit_exceeded',
      null,
      {
        'Retry-After': String(slots.retryAfterSeconds),
      },
    );

  app.post(
    '/v1/chat/completions',
    // Admission first: a request that cannot get a place is refused before its body is even read.
    async (_c, next) => {
      if (slots.full) throw busy();
      await next();
    },
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new WireError(
          413,
          `the request body is larger than ${MAX_BODY_BYTES >> 20} MiB: send at most ${REQUEST_MEDIA_LIMITS.maxTotalBytes >> 20} MiB of media in all`,
          'invalid_request_error',
          'too_large',
        );
      },
    }),
    async (c) => {
      const receivedAt = performance.now();
      const request = await parseRequest(c);
      const model = await catalog.find(request.model);
      if (!model) throw unknownModel(request.model);
      const messages = await messagesOf(request);
      if (options.launch && messages.some((m) => m.media?.length))
        throw badRequest(
          'this server runs on queue workers, which do not take media yet: send text only, or use a server without --queue',
          'messages',
        );
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
        if (error instanceof ServerBusyError) throw busy();
        throw new WireError(499, 'the client closed the request', 'invalid_request_error', 'cancelled');
      }
      const controller = new AbortController();
      const signal = AbortSignal.any([controller.signal, c.req.raw.signal]);
      inFlight.add(controller);
      return answerCompletion(c, {
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
          ...(options.launch ? { launch: options.launch } : {}),
        },
        signal,
        ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
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
    mainConfigFile,
    /** Lists the models (once before a server starts listening, so no request waits for it). */
    ready: () => catalog.refresh().then(() => undefined),
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
  // The content type was checked by the request guard (exactly application/json).
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
