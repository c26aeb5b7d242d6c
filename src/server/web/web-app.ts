import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import {
  ConfigValidationError,
  isExampleRef,
  resolveExampleRef,
  SessionNotFoundError,
  formatDiagnostics,
  configChoices,
  problemOf,
  problemsOfError,
  type ConfigDiagnostic,
  type Env,
  type StartProblem,
  type ValidationReport,
  userConfigFile,
} from '../../app/index.js';
import { validateConfig } from '../../app/validate.js';
import { describeError, MassGenError } from '../../types/errors.js';
import {
  ApprovalRequestSchema,
  ReviewRequestSchema,
  StartRunRequestSchema,
  ValidateRequestSchema,
  type ApiErrorBody,
  type ConfigsResponse,
  type LiveRun,
  type OkResponse,
  type RunDetailResponse,
  type RunsResponse,
  type WebValidationReport,
} from '../../types/web-api.js';
import { listPastRuns, listPastSessions, pastRunDir, readPastEvents } from './history.js';
import { RunHub, RunStartError, UnknownRunError, type HubRun } from './run-hub.js';
import { ConfigCatalog } from './config-catalog.js';
import { registerFileRoutes, rootsOf } from './file-routes.js';
import { body } from './json-body.js';
import { registerSteeringRoutes } from './steering-routes.js';
import { registerEvalRoutes } from './evals.js';
import { HostAllowList, requestGuard } from './guard.js';
import { registerStaticRoutes, STATIC_DIR } from './static-routes.js';
import { tokenGate } from './token-gate.js';
import { readUploads, removeUploads, storeUploads, type StoredUploads } from './uploads.js';
import { RequestMediaError, REQUEST_MEDIA_LIMITS } from '../../app/request-media.js';
import type { MediaPart } from '../../types/media.js';

/** Options of {@link createWebApp}. */
export interface WebAppOptions {
  cwd: string;
  env: Env;
  /** A config given with `--config`, offered first. */
  config?: string;
  /**
   * Which of the working folder's own configs (`*.yaml` there and in `.massgen/`) may be offered and
   * run, by absolute path (default: all). The CLI allows those of a folder the user trusted.
   */
  projectConfigs?: (file: string) => boolean;
  /** When set, every request must carry it (header, `?token=` or the cookie set from it). */
  authToken?: string;
  /** The `Host` values answered (default: the loopback names, on any port). */
  hosts?: HostAllowList;
  /** Where the built browser app is (default: `dist/web` of the installed package). */
  staticDir?: string;
  /** Finished runs the server keeps live (default 100); older ones are forgotten with their uploads. */
  keepFinishedRuns?: number;
  /** The home folder, for the user-level config `massgen --setup` writes (default: the OS's). */
  home?: string;
}

/** Request bodies larger than this are refused: the page sends questions and small objects. */
const MAX_BODY_BYTES = 1024 * 1024;
/** `POST /api/runs` may carry attachments: their bound in base64 (4/3 of the bytes), plus the question. */
const MAX_START_BODY_BYTES =
  Math.ceil(((REQUEST_MEDIA_LIMITS.maxTotalBytes * 4) / 3 + MAX_BODY_BYTES) / 2 ** 20) * 2 ** 20;
/**
 * The web UI's HTTP side as a web-standard handler (Hono): the page, its REST API (configs, runs,
 * history, files, approvals) and nothing else. Live events go over the WebSocket (`web-server.ts`).
 */
export function createWebApp(options: WebAppOptions) {
  const { cwd, env } = options;
  const staticDir = options.staticDir ?? STATIC_DIR;
  // The configs with whether each can run here: listed and parsed off the event loop, cached.
  const project = options.projectConfigs ?? (() => true);
  const home = options.home ?? os.homedir();
  const catalog = new ConfigCatalog({
    cwd,
    env,
    project,
    home,
    ...(options.config ? { flag: options.config } : {}),
  });
  const userConfig = userConfigFile(env, home);
  const allowed = (ref: string): string | null => {
    const choice =
      catalog.cached()?.find((c) => c.ref === ref) ??
      configChoices(cwd, options.config, project).find((c) => c.ref === ref) ??
      (ref === userConfig && existsSync(userConfig) ? { source: 'user' } : undefined);
    if (!choice) return null;
    const file = isExampleRef(ref) ? resolveExampleRef(ref) : path.resolve(cwd, ref);
    // Asked again at run time: the listing may be a second old, the file changed since.
    return choice.source !== 'project' || project(file) ? file : null;
  };
  const hub = new RunHub({
    cwd,
    env,
    resolveConfig: (ref) => {
      const file = allowed(ref);
      if (!file) throw new MassGenError('config_error', `unknown config "${ref}"`);
      return file;
    },
    removeUploads,
    ...(options.keepFinishedRuns === undefined ? {} : { keepFinished: options.keepFinishedRuns }),
  });
  const hosts = options.hosts ?? new HostAllowList(undefined);
  const token = options.authToken;
  const app = new Hono();
  const isApi = (p: string) => p === '/api' || p.startsWith('/api/');

  app.onError((error, c) => c.json({ error: `internal error: ${describeError(error)}` }, 500));
  // The page loads nothing from elsewhere and is never framed; responses are not readable cross-origin.
  // A route that sets one of these headers itself keeps its own (only `raw`, below, does).
  app.use(
    '*',
    secureHeaders({
      overwrite: false,
      strictTransportSecurity: false,
      xFrameOptions: 'DENY',
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    }),
  );
  app.use(
    '*',
    requestGuard({
      hosts,
      server: 'massgen --web',
      strictSite: isApi,
      refuse: (c, refusal) =>
        isApi(c.req.path)
          ? c.json({ error: refusal.message }, refusal.status)
          : c.text(refusal.message, refusal.status),
    }),
  );
  if (token) app.use('*', tokenGate(token, hosts, isApi));
  const smallBodies = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => c.json({ error: 'the request body is larger than 1 MiB: send a shorter question' }, 413),
  });
  const startBodies = bodyLimit({
    maxSize: MAX_START_BODY_BYTES,
    onError: (c) =>
      c.json(
        {
          error: `the request is larger than ${MAX_START_BODY_BYTES >> 20} MiB: attach at most ${REQUEST_MEDIA_LIMITS.maxTotalBytes >> 20} MiB of files in all`,
        },
        413,
      ),
  });
  app.use('/api/*', (c, next) =>
    c.req.method === 'POST' && c.req.path === '/api/runs' ? startBodies(c, next) : smallBodies(c, next),
  );

  app.get('/api/configs', async (c) => c.json((await catalog.list()) satisfies ConfigsResponse));

  app.post('/api/validate', async (c) => {
    const parsed = await body(c, ValidateRequestSchema);
    if (!parsed.ok) return c.json({ error: parsed.error }, 400);
    const { config } = parsed.value;
    const file = allowed(config);
    if (!file) return c.json({ error: `unknown config "${config}"` }, 404);
    return c.json(withText(await validateConfig(file, { cwd, env })) satisfies WebValidationReport);
  });

  app.get('/api/runs', async (c) =>
    c.json({
      live: hub.list().map(summary),
      past: await listPastRuns(cwd),
      sessions: await listPastSessions(cwd),
    } satisfies RunsResponse),
  );

  app.post('/api/runs', async (c) => {
    const parsed = await body(c, StartRunRequestSchema);
    if (!parsed.ok) return c.json({ error: parsed.error }, 400);
    const request = parsed.value;
    const question = request.question.trim();
    if (question === '') return c.json({ error: 'the question is empty' }, 400);
    // No config named: the one the CLI would use here (`default` in GET /api/configs).
    const ref =
      request.config ??
      (request.followUpOf || request.session
        ? undefined
        : (await catalog.list()).find((c) => c.default)?.ref);
    const file = ref ? allowed(ref) : null;
    let attachments: MediaPart[] = [];
    try {
      attachments = await readUploads(request.attachments ?? []);
    } catch (error) {
      if (error instanceof RequestMediaError)
        return c.json({ error: describeError(error) }, error.tooLarge ? 413 : 400);
      throw error;
    }
    if (!request.followUpOf && !request.session) {
      if (!ref)
        return c.json(
          {
            error:
              'no config given and none configured here: send config (one of GET /api/configs), or start massgen --web --config FILE',
          },
          400,
        );
      if (!file) return c.json({ error: `unknown config "${ref}"` }, 404);
      const report = await validateConfig(file, { cwd, env });
      // Everything that stops the run, at once: the file's errors and every agent's missing key.
      const blocking = [...report.errors, ...report.warnings.filter(blocksRun)];
      if (blocking.length > 0) {
        const problems = blocking.map((d) =>
          problemOf(
            d,
            report.agents.map((a) => a.id),
          ),
        );
        return c.json(
          { error: startError(problems), problems, report: withText(report) } satisfies ApiErrorBody,
          400,
        );
      }
    }
    // Written only now, for a run that passed its checks; the hub removes them with the run.
    const stored: StoredUploads | null = attachments.length > 0 ? await storeUploads(cwd, attachments) : null;
    try {
      const run = await hub.start({
        question,
        config: ref ?? '',
        ...(request.followUpOf ? { followUpOf: request.followUpOf } : {}),
        ...(request.session ? { session: request.session } : {}),
        // The stored files by path: the run's log names them there, so a replay can show them again.
        ...(stored ? { attachments: stored.parts.flatMap((a) => a.path ?? []), uploadsDir: stored.dir } : {}),
      });
      return c.json(summary(run) satisfies LiveRun, 201);
    } catch (error) {
      if (stored) await removeUploads(stored.dir);
      if (error instanceof UnknownRunError || error instanceof SessionNotFoundError)
        return c.json({ error: describeError(error) }, 404);
      if (error instanceof RunStartError)
        return c.json(
          { error: startError(error.problems), problems: error.problems } satisfies ApiErrorBody,
          400,
        );
      const diagnostics = error instanceof ConfigValidationError ? error.diagnostics : [];
      return c.json(
        {
          error: describeError(error),
          diagnostics,
          problems: problemsOfError(error),
        } satisfies ApiErrorBody,
        400,
      );
    }
  });

  app.get('/api/runs/:id', async (c) => {
    const id = c.req.param('id');
    const live = hub.get(id);
    if (live) return c.json({ ...summary(live), events: live.events } satisfies RunDetailResponse);
    const dir = pastRunDir(cwd, id);
    const events = dir ? await readPastEvents(dir) : null;
    if (!events) return c.json({ error: `no run with id "${id}"` }, 404);
    return c.json({
      id,
      kind: 'past',
      done: true,
      events,
      roots: rootsOf(cwd, id, null),
    } satisfies RunDetailResponse);
  });

  app.post('/api/runs/:id/cancel', (c) =>
    hub.cancel(c.req.param('id'))
      ? c.json({ ok: true } satisfies OkResponse)
      : c.json({ error: 'no such run in progress' }, 404),
  );

  app.post('/api/runs/:id/approvals', async (c) => {
    const parsed = await body(c, ApprovalRequestSchema);
    if (!parsed.ok) return c.json({ error: parsed.error }, 400);
    const { agentId, callId, approved } = parsed.value;
    return hub.respondToApproval(c.req.param('id'), agentId, callId, approved)
      ? c.json({ ok: true } satisfies OkResponse)
      : c.json({ error: 'no such call is waiting' }, 404);
  });

  // The review panel: which of the winner's changed files to apply (`write_mode: worktree`).
  app.post('/api/runs/:id/review', async (c) => {
    const parsed = await body(c, ReviewRequestSchema);
    if (!parsed.ok) return c.json({ error: parsed.error }, 400);
    const { reviewId, apply } = parsed.value;
    return hub.respondToReview(c.req.param('id'), reviewId, apply)
      ? c.json({ ok: true } satisfies OkResponse)
      : c.json({ error: 'no such review is waiting' }, 404);
  });

  registerFileRoutes(app, hub, cwd);
  registerSteeringRoutes(app, hub, cwd);
  registerEvalRoutes(app, cwd);

  app.notFound((c) => c.json({ error: `nothing at ${c.req.method} ${c.req.path.slice(0, 100)}` }, 404));
  app.all('/api/*', (c) => c.json({ error: `no API route ${c.req.method} ${c.req.path}` }, 404));

  registerStaticRoutes(app, staticDir);

  return { app, hub };
}

/** Warnings that stop a run here: an agent's missing API key, an unset `${VAR}` the config uses. */
const blocksRun = (d: ConfigDiagnostic): boolean =>
  d.path.endsWith('.api_key') || /environment variable \S+ is not set/.test(d.message);

/** One line for a run that cannot start. */
const startError = (problems: readonly StartProblem[]): string =>
  problems.length === 1
    ? `the run cannot start: ${problems[0]?.message ?? ''}`
    : `the run cannot start: ${problems.length} problems (each is listed)`;

/** The report with its lines formatted exactly as `massgen --validate` prints them. */
function withText(report: ValidationReport) {
  return {
    ...report,
    errorLines: report.errors.length > 0 ? formatDiagnostics(report.errors, report.file).split('\n') : [],
    warningLines:
      report.warnings.length > 0 ? formatDiagnostics(report.warnings, report.file).split('\n') : [],
  };
}

function summary(run: HubRun): LiveRun {
  return {
    id: run.id,
    kind: 'live',
    question: run.question,
    config: run.configRef,
    sessionKey: run.sessionKey,
    done: run.done,
    error: run.error,
  };
}
