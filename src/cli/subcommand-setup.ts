import os from 'node:os';
import { CommanderError } from 'commander';
import { loadUserEnv, runScrubber } from '../app/essentials.js';
import { ExitCode } from '../types/errors.js';
import { inertText } from '../util/terminal-text.js';
import type { CliIo } from './cli-io.js';
import { projectEnvAllowed } from './project-trust-gate.js';

/** What every subcommand dispatcher (`batch`, `mcp`, `step`…) needs before it parses its own argv. */
export interface SubcommandSetup {
  home: string;
  /** The process env with the user's `.env` files loaded (the working folder's when it is trusted), as a run sees it. */
  env: Record<string, string | undefined>;
  /** What is printed quotes questions, answers and errors: scrubbed of secrets and shown inert. */
  scrub: (text: string) => string;
}

export function setUpSubcommand(io: CliIo): SubcommandSetup {
  const home = io.home ?? os.homedir();
  const projectEnv = projectEnvAllowed(io);
  const env = loadUserEnv({ cwd: io.cwd, env: io.env, home, projectEnv });
  const scrubber = runScrubber(null, env);
  return { home, env, scrub: (text: string) => inertText(scrubber.text(text)) };
}

/**
 * The exit code for a commander parse error (`--help` and `--version` included), after printing it on
 * one line as `massgen COMMAND: error: …` (`massgen: error: …` for the main command line, `command`
 * ''); undefined for any other error, which the caller reports itself.
 */
export function commanderExit(command: string, error: unknown, io: CliIo): number | undefined {
  if (!(error instanceof CommanderError)) return undefined;
  if (error.exitCode === 0) return ExitCode.success; // --help, --version
  // One line: commander puts its "(Did you mean --model?)" suggestion on a line of its own.
  const message = error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
  io.stderr(`massgen${command ? ` ${command}` : ''}: error: ${message}\n`);
  return ExitCode.config;
}

/** Resolves once the process is asked to stop (Ctrl-C, SIGTERM, SIGHUP): how a server command ends. */
export function stoppedBy(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** The run-wide parts of {@link CliIo} a progress-reporting command passes on: Ctrl-C and the terminal. */
export function progressIo(io: CliIo): Pick<CliIo, 'signal' | 'stderrIsTTY' | 'columns'> {
  return {
    ...(io.signal ? { signal: io.signal } : {}),
    ...(io.stderrIsTTY === undefined ? {} : { stderrIsTTY: io.stderrIsTTY }),
    ...(io.columns ? { columns: io.columns } : {}),
  };
}
