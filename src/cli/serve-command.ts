import { Command, InvalidArgumentError } from 'commander';
import type { Env } from '../app/index.js';
import type { Write } from '../app/plain-display.js';
import { describeError } from '../types/errors.js';
import type { RunResult } from '../types/run-result.js';

/** `massgen serve`'s own command line. */
export interface ServeOptions {
  config?: string;
  port: number;
  host: string;
  apiKey?: string;
  maxConcurrent: number;
  maxQueue: number;
  logs: boolean;
}

const count = (min: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`expected a whole number ≥ ${min}`);
  return n;
};

const serveExamples = `
Examples:
  $ massgen serve --config team.yaml                 # http://127.0.0.1:4000/v1
  $ massgen serve --config @examples/basic/three_agents --port 8080
  $ massgen serve --config team.yaml --host 0.0.0.0 --api-key "$MASSGEN_SERVER_API_KEY"

Then, from any OpenAI client: base URL http://127.0.0.1:4000/v1, model "massgen"
(or "massgen/<name>" for another config GET /v1/models lists).`;

/** Parses `massgen serve …` (the arguments after `serve`). Errors are commander's, as for the main program. */
export function parseServeArgs(argv: readonly string[]): ServeOptions {
  const program = new Command('massgen serve')
    .description('An OpenAI-compatible HTTP API: any OpenAI client calls the team as one model.')
    .option('-c, --config <file>', 'the config model "massgen" runs (a YAML/JSON file or @examples/NAME)')
    .option('--port <number>', 'the port (0 picks a free one)', count(0), 4000)
    .option('--host <address>', 'the address to listen on', '127.0.0.1')
    .option('--api-key <key>', 'the key every request must carry (default: $MASSGEN_SERVER_API_KEY)')
    .option('--max-concurrent <n>', 'runs at once', count(1), 4)
    .option('--max-queue <n>', 'requests waiting for a run; beyond that, 429', count(0), 16)
    .option('--no-logs', 'do not write .massgen/massgen_logs for each run')
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
  stdout: Write;
  stderr: Write;
  /** Resolves when the server should stop (Ctrl-C, SIGTERM). */
  stopped: Promise<void>;
  /** Masks secrets in what is printed. */
  scrub: (text: string) => string;
}

function accessLine(model: string, result: RunResult | null, error: unknown): string {
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
  const apiKey = options.apiKey ?? io.env.MASSGEN_SERVER_API_KEY;
  let server;
  try {
    server = await startServeServer({
      cwd: io.cwd,
      env: io.env,
      config: options.config,
      host: options.host,
      port: options.port,
      maxConcurrent: options.maxConcurrent,
      maxQueue: options.maxQueue,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(options.logs ? {} : { logging: false }),
      onRunFinished: ({ model, result, error }) =>
        io.stderr(io.scrub(`${accessLine(model, result, error)}\n`)),
    });
  } catch (error) {
    const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    const hint = inUse
      ? 'another process uses that port; pick one with --port'
      : (error as { hint?: string }).hint;
    return fail(`cannot start the server: ${describeError(error)}`, hint);
  }
  for (const warning of server.warnings) io.stderr(io.scrub(`massgen: warning: ${warning}\n`));
  io.stdout(`massgen serve: ${server.url} (model "massgen" runs ${options.config})\n`);
  io.stdout(apiKey ? 'Requests must carry "Authorization: Bearer <your key>".\n' : '');
  io.stdout('Press Ctrl-C to stop.\n');
  await io.stopped;
  await server.close();
  return 0;
}
