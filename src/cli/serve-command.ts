import { Command, InvalidArgumentError } from 'commander';
import type { Env } from '../app/index.js';
import type { Write } from '../app/plain-display.js';
import { CancelledError, describeError, ExitCode } from '../types/errors.js';
import type { RunResult } from '../types/run-result.js';
import type { ServeServer } from '../server/openai/serve-server.js';

/** `massgen serve`'s own command line. */
export interface ServeOptions {
  config?: string;
  port: number;
  host: string;
  apiKey?: string;
  /** `--no-auth` makes it false. */
  auth: boolean;
  allowedHost?: string[];
  maxConcurrent: number;
  maxQueue: number;
  logs: boolean;
  /** Run on queue workers (`massgen worker`) instead of in this process. */
  queue?: string;
  queueName: string;
  attempts: number;
  jobTimeout?: number;
  queueSecretFile?: string;
  /** Seconds a stop waits for the runs in flight to end before it closes their logs and quits. */
  shutdownTimeout: number;
}

const count = (min: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`expected a whole number ≥ ${min}`);
  return n;
};

const seconds = (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError('expected a number of seconds ≥ 0, e.g. 5 or 0.5');
  return n;
};

const serveExamples = `
Examples:
  $ massgen serve --config team.yaml                 # http://127.0.0.1:4000/v1, prints a key
  $ massgen serve --config @examples/basic/three_agents --port 8080
  $ massgen serve --config team.yaml --host 0.0.0.0 --api-key "$MASSGEN_SERVER_API_KEY"

Then, from any OpenAI client: base URL http://127.0.0.1:4000/v1, the printed key as API key,
model "massgen" (or "massgen/<name>" for another config GET /v1/models lists).`;

/** Parses `massgen serve …` (the arguments after `serve`). Errors are commander's, as for the main program. */
export function parseServeArgs(argv: readonly string[]): ServeOptions {
  const program = new Command('massgen serve')
    .description('An OpenAI-compatible HTTP API: any OpenAI client calls the team as one model.')
    .option('-c, --config <file>', 'the config model "massgen" runs (a YAML/JSON file or @examples/NAME)')
    .option('--port <number>', 'the port (0 picks a free one)', count(0), 4000)
    .option('--host <address>', 'the address to listen on', '127.0.0.1')
    .option(
      '--api-key <key>',
      'the key every request must carry (default: $MASSGEN_SERVER_API_KEY, else one is generated and printed)',
    )
    .option('--no-auth', 'no key (loopback only): every program on this machine can run your agents')
    .option(
      '--allowed-host <name>',
      'also answer to this Host name (repeatable), e.g. behind a proxy',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--max-concurrent <n>', 'runs at once', count(1), 4)
    .option('--max-queue <n>', 'requests waiting for a run; beyond that, 429', count(0), 16)
    .option('--no-logs', 'do not write .massgen/massgen_logs for each run')
    .option('--queue <url>', 'run on queue workers (massgen worker) through Redis: redis://HOST:PORT')
    .option('--queue-name <name>', 'with --queue: the queue on that Redis', 'massgen')
    .option(
      '--attempts <n>',
      'with --queue: attempts per run when its worker fails or times out',
      count(1),
      3,
    )
    .option(
      '--job-timeout <seconds>',
      'with --queue: stop a run after this long (the attempt fails)',
      count(1),
    )
    .option(
      '--queue-secret-file <file>',
      'with --queue: sign jobs with this secret, shared with the workers (default: $MASSGEN_QUEUE_SECRET)',
    )
    .option(
      '--shutdown-timeout <seconds>',
      'on Ctrl-C/SIGTERM: how long the runs in flight get to end (cancelled) before the server quits anyway',
      seconds,
      5,
    )
    .addHelpText('after', serveExamples)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stdout.write(text) })
    .showSuggestionAfterError(true);
  program.parse([...argv], { from: 'user' });
  return program.opts<ServeOptions>();
}

/** What `massgen serve` needs from the process. */
export interface ServeCommandIo {
  cwd: string;
  env: Env;
  /** Which of the working folder's configs may be offered as models (those of a trusted folder). */
  projectConfigs: (file: string) => boolean;
  stdout: Write;
  stderr: Write;
  /**
   * Every stop request (Ctrl-C, SIGTERM, SIGHUP): the first stops the server gracefully, the second
   * quits at once. While subscribed, the process leaves the signals to `serve`.
   */
  onInterrupt?: (listener: () => void) => () => void;
  /** Without `onInterrupt`: resolves on the first stop request, which stops the server gracefully. */
  stopped: Promise<void>;
  /** Masks secrets in what is printed. */
  scrub: (text: string) => string;
  /** Called once the server listens and its address is printed (`massgen demo serve` shows how to call it). */
  onListening?: (server: ServeServer) => void;
}

function accessLine(model: string, result: RunResult | null, error: unknown): string {
  if (!result && error instanceof CancelledError) return `run (${model}): cancelled: ${describeError(error)}`;
  if (!result) return `run (${model}) could not start: ${describeError(error)}`;
  const seconds = (result.durationMs / 1000).toFixed(1);
  const winner = result.winnerId ? ` winner ${result.winnerId}` : '';
  const log = result.logDir ? ` — ${result.logDir}` : '';
  return `run ${result.runId} (${model}): ${result.status} in ${seconds}s${winner}${log}`;
}

/** Starts the server, prints its address, serves until stopped. Returns the exit code. */
export async function runServeCommand(options: ServeOptions, io: ServeCommandIo): Promise<number> {
  const fail = (message: string, hint?: string) => {
    io.stderr(io.scrub(`massgen: error: ${message}\n${hint ? `hint: ${hint}\n` : ''}`));
    return 1;
  };
  if (!options.config) {
    return fail(
      'massgen serve needs --config FILE: the team that answers as model "massgen"',
      'e.g. massgen serve --config team.yaml, or --config @examples/basic/three_agents',
    );
  }
  // Loaded only here: a plain run never pays for the HTTP stack.
  const { startServeServer } = await import('../server/openai/serve-server.js');
  const givenKey = options.apiKey ?? io.env.MASSGEN_SERVER_API_KEY;
  let server;
  let queue: { close(): Promise<void> } | null = null;
  try {
    let launch;
    if (options.queue) {
      // Loaded only with --queue: bullmq and ioredis stay out of a server that runs in process.
      const { connectProducer, queueLauncher } = await import('../queue/index.js');
      const client = await connectProducer({
        queue: options.queue,
        queueName: options.queueName,
        queueSecretFile: options.queueSecretFile,
        env: io.env,
        cwd: io.cwd,
        onNotice: (line) => io.stderr(io.scrub(`massgen serve: ${line}\n`)),
      });
      queue = client;
      launch = queueLauncher({
        client,
        env: io.env,
        attempts: options.attempts,
        ...(options.jobTimeout === undefined ? {} : { timeoutMs: options.jobTimeout * 1000 }),
      });
      const workers = await client.workers();
      io.stdout(
        `Runs go to queue "${client.location.name}" on ${client.location.label}` +
          (workers > 0
            ? ` (${workers} worker${workers === 1 ? '' : 's'} connected)\n`
            : `; no worker is connected yet — start one with massgen worker --queue ${client.location.label}\n`),
      );
    }
    server = await startServeServer({
      ...(launch ? { launch } : {}),
      cwd: io.cwd,
      env: io.env,
      projectConfigs: io.projectConfigs,
      config: options.config,
      host: options.host,
      port: options.port,
      maxConcurrent: options.maxConcurrent,
      maxQueue: options.maxQueue,
      ...(givenKey === undefined ? {} : { apiKey: givenKey }),
      ...(options.auth === false ? { auth: false } : {}),
      ...(options.allowedHost ? { allowedHosts: options.allowedHost } : {}),
      ...(options.logs ? {} : { logging: false }),
      onRunFinished: ({ model, result, error }) =>
        io.stderr(io.scrub(`${accessLine(model, result, error)}\n`)),
    });
  } catch (error) {
    const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    const hint = inUse
      ? 'another process uses that port; pick one with --port'
      : (error as { hint?: string }).hint;
    await queue?.close();
    return fail(`cannot start the server: ${describeError(error)}`, hint);
  }
  for (const warning of server.warnings) io.stderr(io.scrub(`massgen: warning: ${warning}\n`));
  io.stdout(`massgen serve: ${server.url} (model "massgen" runs ${options.config})\n`);
  if (server.apiKey && givenKey === undefined)
    io.stdout(
      `API key: ${server.apiKey} (generated; send it as "Authorization: Bearer KEY", or choose one with --api-key)\n`,
    );
  else if (server.apiKey) io.stdout('Requests must carry "Authorization: Bearer <your key>".\n');
  else
    io.stderr(
      'massgen: warning: --no-auth: every program and user on this machine can run your agents through this server (web pages still cannot)\n',
    );
  io.onListening?.(server);
  io.stdout('Press Ctrl-C to stop.\n');
  const running = server;
  let unsubscribe = () => {};
  const code = await new Promise<number>((resolve) => {
    let stops = 0;
    const stop = () => {
      stops++;
      if (stops === 1) {
        const { running: now, waiting } = running.runs;
        io.stderr(`${stoppingLine(now + waiting)}\n`);
        void running.close({ timeoutMs: options.shutdownTimeout * 1000 }).then(async ({ forced }) => {
          if (forced === 0) {
            await queue?.close();
            return resolve(ExitCode.success);
          }
          io.stderr(
            `massgen serve: ${plural(forced, 'run')} had not ended after ${options.shutdownTimeout}s: logged as cancelled, clients told so\n`,
          );
          resolve(ExitCode.interrupted);
        });
      } else if (stops === 2) {
        // Nothing more is awaited; the logs still end in a terminal state.
        running.terminateSync('massgen serve was stopped again (a second Ctrl-C) before the run had ended');
        io.stderr('massgen serve: quitting now; the runs in flight are logged as cancelled\n');
        resolve(ExitCode.interrupted);
      }
    };
    if (io.onInterrupt) unsubscribe = io.onInterrupt(stop);
    else void io.stopped.then(stop);
  });
  // Stopped: a further signal is the process's again.
  unsubscribe();
  return code;
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The one line a stop prints: what is happening, and how to quit at once. */
function stoppingLine(inFlight: number): string {
  if (inFlight === 0) return 'massgen serve: stopping (no runs in flight)';
  return `massgen serve: stopping: ${plural(inFlight, 'run')} in flight, cancelling — press Ctrl-C again to quit now`;
}
