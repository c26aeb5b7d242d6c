import type { Readable, Writable } from 'node:stream';
import { Command, InvalidArgumentError } from 'commander';
import type { Env } from '../app/index.js';
import type { Write } from '../app/plain-display.js';
import { describeError, ExitCode } from '../types/errors.js';

/** `massgen mcp`'s own command line. */
export interface McpOptions {
  config?: string;
  /** Serve Streamable HTTP on this port instead of stdio. */
  http?: number;
  host: string;
  token?: string;
  /** `--no-auth` makes it false. */
  auth: boolean;
  allowedHost?: string[];
  /** `--allow-path DIR` (repeatable): folders beside the working folder whose files clients may name. */
  allowPath?: string[];
  maxConcurrent: number;
  maxQueue: number;
  logs: boolean;
}

const count = (min: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`expected a whole number ≥ ${min}`);
  return n;
};

const mcpExamples = `
Examples:
  $ claude mcp add massgen -- npx massgen mcp                # Claude Code (stdio)
  $ codex mcp add massgen -- npx massgen mcp                 # Codex
  $ gemini mcp add massgen npx massgen mcp                   # Gemini CLI
  $ massgen mcp --config team.yaml                           # a default team for run
  $ massgen mcp --http 8765                                  # http://127.0.0.1:8765/mcp, prints a token
  $ massgen mcp --allow-path ../shared-docs                  # clients may also name files there

Tools: run, status, result, cancel, list_runs, list_examples, validate_config (docs/mcp-server.md).`;

/** Parses `massgen mcp …` (the arguments after `mcp`). */
export function parseMcpArgs(argv: readonly string[]): McpOptions {
  const program = new Command('massgen mcp')
    .description(
      'massgen as an MCP server: coding agents start team runs, watch them and read their results.',
    )
    .option(
      '-c, --config <file>',
      'the team run uses when the client names none (a YAML file or @examples/NAME)',
    )
    .option('--http <port>', 'serve Streamable HTTP on this port (0 picks one) instead of stdio', count(0))
    .option('--host <address>', 'with --http: the address to listen on', '127.0.0.1')
    .option(
      '--token <token>',
      'with --http: the token every request must carry (default: $MASSGEN_MCP_TOKEN, else one is generated)',
    )
    .option('--no-auth', 'with --http: no token (loopback only)')
    .option(
      '--allowed-host <name>',
      'with --http: also answer to this Host name (repeatable)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      '--allow-path <dir>',
      'clients may also name files in DIR (repeatable); by default only files in the folder massgen mcp runs in',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--max-concurrent <n>', 'runs at once', count(1), 2)
    .option('--max-queue <n>', 'runs waiting for a slot; beyond that run is refused', count(0), 8)
    .option('--no-logs', 'do not write .massgen/massgen_logs for each run')
    .addHelpText('after', mcpExamples)
    .exitOverride()
    // In stdio mode stdout is the protocol's: help goes to stderr.
    .configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stderr.write(text) })
    .showSuggestionAfterError(true);
  program.parse([...argv], { from: 'user' });
  return program.opts<McpOptions>();
}

/** What `massgen mcp` needs from the process. */
export interface McpCommandIo {
  cwd: string;
  env: Env;
  stdin: Readable;
  /** Human-readable lines: in stdio mode never stdout (it carries the protocol). */
  stderr: Write;
  /** For `--http`: its address and token. */
  stdout: Write;
  /** Takes stdout for MCP messages alone (everything else written there goes to stderr from now on). */
  claimStdout: () => Writable;
  /** Resolves when the server should stop (Ctrl-C, SIGTERM). */
  stopped: Promise<void>;
  scrub: (text: string) => string;
}

/** Serves MCP until the client hangs up (stdio) or the process is stopped. Returns the exit code. */
export async function runMcpCommand(options: McpOptions, io: McpCommandIo): Promise<number> {
  const say = (text: string) => io.stderr(io.scrub(text));
  // Loaded only here: the MCP SDK and the run machinery stay out of every other command.
  const { RunRegistry, serveMcpOverStdio, startMcpHttpServer } = await import('../mcp-server/index.js');
  let runs: InstanceType<typeof RunRegistry>;
  try {
    runs = new RunRegistry({
      cwd: io.cwd,
      env: io.env,
      ...(options.allowPath ? { allowedPaths: options.allowPath } : {}),
      ...(options.config ? { config: options.config } : {}),
      maxConcurrent: options.maxConcurrent,
      maxQueue: options.maxQueue,
      ...(options.logs ? {} : { logging: false }),
      onRunFinished: (run) => {
        const result = run.result;
        const seconds = result ? ` in ${(result.durationMs / 1000).toFixed(1)}s` : '';
        const winner = result?.winnerId ? ` winner ${result.winnerId}` : '';
        const why = !result && run.startError ? `: ${run.startError.message}` : '';
        const log = run.logDir ? ` — ${run.logDir}` : '';
        say(`massgen mcp: run ${run.id}: ${result?.status ?? 'failed'}${seconds}${winner}${why}${log}\n`);
      },
    });
  } catch (error) {
    say(`massgen mcp: error: ${describeError(error)}\n`);
    const hint = (error as { hint?: string }).hint;
    if (hint) say(`hint: ${hint}\n`);
    return ExitCode.config;
  }
  if (options.config) {
    try {
      // The user's own --config may be anywhere: only what clients name stays in the allowed folders.
      runs.resolveConfig(undefined);
    } catch (error) {
      say(`massgen mcp: error: ${describeError(error)}\n`);
      return ExitCode.config;
    }
  }
  const tools = { cwd: io.cwd, env: io.env };
  if (options.http === undefined) {
    await serveMcpOverStdio(runs, {
      ...tools,
      input: io.stdin,
      output: io.claimStdout(),
      stopped: io.stopped,
    });
    await runs.close();
    return ExitCode.success;
  }
  const token = options.token ?? io.env.MASSGEN_MCP_TOKEN;
  let server;
  try {
    server = await startMcpHttpServer(runs, {
      ...tools,
      host: options.host,
      port: options.http,
      ...(token === undefined ? {} : { token }),
      ...(options.auth === false ? { auth: false } : {}),
      ...(options.allowedHost ? { allowedHosts: options.allowedHost } : {}),
    });
  } catch (error) {
    const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    say(`massgen mcp: error: cannot start the server: ${describeError(error)}\n`);
    const hint = inUse
      ? 'another process uses that port; pick one with --http PORT'
      : (error as { hint?: string }).hint;
    if (hint) say(`hint: ${hint}\n`);
    return ExitCode.config;
  }
  io.stdout(`massgen mcp: ${server.url}\n`);
  if (server.token && token === undefined)
    io.stdout(`Token: ${server.token} (generated; clients send it as "Authorization: Bearer TOKEN")\n`);
  else if (server.token) io.stdout('Requests must carry "Authorization: Bearer <your token>".\n');
  else say('massgen mcp: warning: --no-auth: every program on this machine can run your agents through it\n');
  io.stdout(
    `e.g. claude mcp add --transport http massgen ${server.url}${server.token ? ' --header "Authorization: Bearer TOKEN"' : ''}\nPress Ctrl-C to stop.\n`,
  );
  await io.stopped;
  await server.close();
  await runs.close();
  return ExitCode.success;
}
