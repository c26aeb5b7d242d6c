import os from 'node:os';
import { CommanderError } from 'commander';
import { loadUserEnv, runScrubber } from '../app/essentials.js';
import { ExitCode } from '../types/errors.js';
import { inertText } from '../util/terminal-text.js';
import type { CliIo } from './main.js';
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
 * The exit code for a commander parse error (`--help` included), after printing it the way every
 * subcommand does; undefined for any other error, which the dispatcher reports itself.
 */
export function commanderExit(command: string, error: unknown, io: CliIo): number | undefined {
  if (!(error instanceof CommanderError)) return undefined;
  if (error.exitCode === 0) return ExitCode.success; // --help
  io.stderr(
    `massgen ${command}: error: ${error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ')}\n`,
  );
  return ExitCode.config;
}

/** The run-wide parts of {@link CliIo} a progress-reporting command passes on: Ctrl-C and the terminal. */
export function progressIo(io: CliIo): Pick<CliIo, 'signal' | 'stderrIsTTY' | 'columns'> {
  return {
    ...(io.signal ? { signal: io.signal } : {}),
    ...(io.stderrIsTTY === undefined ? {} : { stderrIsTTY: io.stderrIsTTY }),
    ...(io.columns ? { columns: io.columns } : {}),
  };
}
