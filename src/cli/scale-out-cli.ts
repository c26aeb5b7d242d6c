import { ExitCode, describeError } from '../types/errors.js';
import type { CliIo } from './cli-io.js';
import { commanderExit, progressIo, setUpSubcommand } from './subcommand-setup.js';

/** The commands that run many questions: `massgen batch`, `massgen worker`, `massgen queue`, `massgen eval`. */
export type ScaleOutCommand = 'batch' | 'worker' | 'queue' | 'eval';

export const SCALE_OUT_COMMANDS: readonly string[] = ['batch', 'worker', 'queue', 'eval'];

/** Runs `massgen batch|worker|queue …` (argv after the command word). Never throws. */
export async function runScaleOutCli(
  command: ScaleOutCommand,
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  const { env, scrub } = setUpSubcommand(io);
  const commandIo = { cwd: io.cwd, env, stdout: io.stdout, stderr: io.stderr, scrub };
  try {
    if (command === 'batch') {
      const { parseBatchArgs, runBatchCommand } = await import('./batch-command.js');
      const options = parseBatchArgs(argv);
      return await runBatchCommand(options, { ...commandIo, ...progressIo(io) });
    }
    if (command === 'eval') {
      const { parseEvalArgs, runEvalCommand } = await import('./eval-command.js');
      return await runEvalCommand(parseEvalArgs(argv), { ...commandIo, ...progressIo(io) });
    }
    if (command === 'worker') {
      const { parseWorkerArgs, runWorkerCommand } = await import('./worker-command.js');
      const options = parseWorkerArgs(argv);
      return await runWorkerCommand(options, {
        ...commandIo,
        ...(io.onInterrupt ? { onInterrupt: io.onInterrupt } : {}),
        ...(io.signal ? { signal: io.signal } : {}),
      });
    }
    const { parseQueueArgs, runQueueCommand } = await import('./queue-command.js');
    return await runQueueCommand(parseQueueArgs(argv), commandIo);
  } catch (error) {
    const parseExit = commanderExit(command, error, io);
    if (parseExit !== undefined) return parseExit;
    io.stderr(scrub(`massgen: error: ${describeError(error)}\n`));
    return ExitCode.runFailed;
  }
}
