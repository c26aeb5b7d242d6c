import os from 'node:os';
import { CommanderError } from 'commander';
import { loadUserEnv, runScrubber } from '../app/essentials.js';
import { ExitCode, describeError } from '../types/errors.js';
import { inertText } from '../util/terminal-text.js';
import type { CliIo } from './main.js';

/** The commands that run many questions: `massgen batch`, `massgen worker`, `massgen queue`. */
export type ScaleOutCommand = 'batch' | 'worker' | 'queue';

export const SCALE_OUT_COMMANDS: readonly string[] = ['batch', 'worker', 'queue'];

/** Runs `massgen batch|worker|queue …` (argv after the command word). Never throws. */
export async function runScaleOutCli(
  command: ScaleOutCommand,
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  const env = loadUserEnv({ cwd: io.cwd, env: io.env, home: io.home ?? os.homedir() });
  const scrubber = runScrubber(null, env);
  // What is printed quotes questions, answers and errors: scrubbed of secrets and shown inert.
  const scrub = (text: string) => inertText(scrubber.text(text));
  try {
    if (command === 'batch') {
      const { parseBatchArgs, runBatchCommand } = await import('./batch-command.js');
      const options = parseBatchArgs(argv);
      return await runBatchCommand(options, {
        cwd: io.cwd,
        env,
        stdout: io.stdout,
        stderr: io.stderr,
        scrub,
        ...(io.signal ? { signal: io.signal } : {}),
        ...(io.stderrIsTTY === undefined ? {} : { stderrIsTTY: io.stderrIsTTY }),
        ...(io.columns ? { columns: io.columns } : {}),
      });
    }
    if (command === 'worker') {
      const { parseWorkerArgs, runWorkerCommand } = await import('./worker-command.js');
      const options = parseWorkerArgs(argv);
      return await runWorkerCommand(options, {
        cwd: io.cwd,
        env,
        stdout: io.stdout,
        stderr: io.stderr,
        scrub,
        ...(io.onInterrupt ? { onInterrupt: io.onInterrupt } : {}),
        ...(io.signal ? { signal: io.signal } : {}),
      });
    }
    const { parseQueueArgs, runQueueCommand } = await import('./queue-command.js');
    return await runQueueCommand(parseQueueArgs(argv), { stdout: io.stdout, stderr: io.stderr, scrub });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return ExitCode.success; // --help
      io.stderr(
        `massgen ${command}: error: ${error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ')}\n`,
      );
      return ExitCode.config;
    }
    io.stderr(scrub(`massgen: error: ${describeError(error)}\n`));
    return ExitCode.runFailed;
  }
}
