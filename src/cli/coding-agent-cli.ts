import { Writable } from 'node:stream';
import { ExitCode, MassGenError, describeError } from '../types/errors.js';
import type { CliIo } from './cli-io.js';
import { commanderExit, setUpSubcommand } from './subcommand-setup.js';

/** The commands for coding agents and outside orchestrators: `massgen mcp`, `massgen skill`, `massgen step`. */
export const CODING_AGENT_COMMANDS: readonly string[] = ['mcp', 'skill', 'step'];

/** Resolves once the process is asked to stop. */
const stoppedBy = (signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) resolve();
    signal?.addEventListener('abort', () => resolve(), { once: true });
  });

/**
 * Takes the real stdout for MCP messages alone: from now on anything else written to it (a library's
 * console.log, a warning) goes to stderr, so the client never reads a stray line as protocol.
 */
function claimProcessStdout(): Writable {
  const write = process.stdout.write.bind(process.stdout) as (
    chunk: unknown,
    callback: (error?: Error | null) => void,
  ) => boolean;
  const protocol = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      write(chunk, (error) => callback(error ?? null));
    },
  });
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) =>
    (process.stderr.write as (...args: unknown[]) => boolean)(chunk, ...rest)) as typeof process.stdout.write;
  return protocol;
}

/** Runs `massgen mcp|skill|step …` (argv after the command word). Never throws. */
export async function runCodingAgentCli(
  command: string,
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  const { home, env, scrub } = setUpSubcommand(io);
  // Provider warnings would otherwise reach the console (and, for mcp, stdout).
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
  try {
    if (command === 'mcp') {
      const { parseMcpArgs, runMcpCommand } = await import('./mcp-command.js');
      const options = parseMcpArgs(argv);
      return await runMcpCommand(options, {
        cwd: io.cwd,
        env,
        stdin: (io.stdin ?? process.stdin) as NodeJS.ReadStream,
        stdout: io.stdout,
        stderr: io.stderr,
        claimStdout: claimProcessStdout,
        stopped: stoppedBy(io.signal),
        scrub,
      });
    }
    if (command === 'skill') {
      const { parseSkillArgs, runSkillCommand } = await import('./skill-command.js');
      return runSkillCommand(parseSkillArgs(argv), {
        cwd: io.cwd,
        home,
        stdout: io.stdout,
        stderr: io.stderr,
      });
    }
    const { parseStepArgs, runStepCommand } = await import('./step-command.js');
    return await runStepCommand(parseStepArgs(argv), {
      cwd: io.cwd,
      env,
      stdout: io.stdout,
      stderr: io.stderr,
      scrub,
      ...(io.signal ? { signal: io.signal } : {}),
    });
  } catch (error) {
    const parseExit = commanderExit(command, error, io);
    if (parseExit !== undefined) return parseExit;
    io.stderr(scrub(`massgen ${command}: error: ${describeError(error)}\n`));
    if (error instanceof MassGenError && error.hint) io.stderr(scrub(`hint: ${error.hint}\n`));
    return error instanceof MassGenError && (error.code === 'config_error' || error.code === 'usage_error')
      ? ExitCode.config
      : ExitCode.runFailed;
  }
}
