import { Command, InvalidArgumentError } from 'commander';
import type { Env } from '../app/essentials.js';
import type { Write } from '../app/plain-display.js';
import { ExitCode, MassGenError, describeError, exitCodeForError } from '../types/errors.js';
import { inertJson } from '../util/terminal-text.js';

/** `massgen queue status|retry|drain`. */
export interface QueueCommand {
  action: 'status' | 'retry' | 'drain';
  queue: string;
  queueName: string;
  json: boolean;
  /** retry: the dead jobs to retry (none: all). */
  ids: string[];
  /** drain: the dead-letter list too. */
  dead: boolean;
  /** retry: a new time limit per attempt, in seconds. */
  jobTimeout?: number;
  /** retry: the queue secret, to sign a changed job again (default: `MASSGEN_QUEUE_SECRET`). */
  queueSecretFile?: string;
}

const seconds = (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number of seconds');
  return n;
};

const queueExamples = `
Examples:
  $ massgen queue status --queue redis://127.0.0.1:6379          # counts, workers, dead-letter list
  $ massgen queue retry --queue redis://127.0.0.1:6379 [JOB_ID…]  # dead jobs back on the queue
  $ massgen queue retry --queue redis://127.0.0.1:6379 --job-timeout 600   # …with a new time limit
  $ massgen queue drain --queue redis://127.0.0.1:6379 [--dead]   # remove what has not started`;

/** Parses `massgen queue …`. Errors are commander's. */
export function parseQueueArgs(argv: readonly string[]): QueueCommand {
  let parsed: QueueCommand | undefined;
  const common = (command: Command) =>
    command
      .requiredOption('--queue <url>', 'the Redis server holding the queue: redis://HOST:PORT')
      .option('--queue-name <name>', 'the queue on that Redis', 'massgen')
      .exitOverride()
      .configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stdout.write(text) });
  const program = new Command('massgen queue')
    .description('Look after the queue of massgen batch --queue and massgen serve --queue.')
    .addHelpText('after', queueExamples)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stdout.write(text) })
    .showSuggestionAfterError(true);
  const record = (action: QueueCommand['action'], ids: string[], opts: Record<string, unknown>) => {
    parsed = {
      action,
      queue: String(opts.queue),
      queueName: String(opts.queueName),
      json: opts.json === true,
      ids,
      dead: opts.dead === true,
      ...(typeof opts.jobTimeout === 'number' ? { jobTimeout: opts.jobTimeout } : {}),
      ...(typeof opts.queueSecretFile === 'string' ? { queueSecretFile: opts.queueSecretFile } : {}),
    };
  };
  common(program.command('status').description('jobs by state, connected workers, the dead-letter list'))
    .option('--json', 'print JSON', false)
    .action((opts: Record<string, unknown>) => record('status', [], opts));
  common(program.command('retry').description('put dead jobs (all, or these ids) back on the queue'))
    .argument('[ids...]', 'job ids from massgen queue status')
    .option('--job-timeout <seconds>', 'a new time limit per attempt (for jobs that timed out)', seconds)
    .option(
      '--queue-secret-file <file>',
      'with --job-timeout: the secret to sign changed jobs again (default: $MASSGEN_QUEUE_SECRET)',
    )
    .option('--json', 'print JSON', false)
    .action((ids: string[], opts: Record<string, unknown>) => record('retry', ids, opts));
  common(
    program.command('drain').description('remove every job that has not started (runs in progress finish)'),
  )
    .option('--dead', 'also empty the dead-letter list', false)
    .option('--json', 'print JSON', false)
    .action((opts: Record<string, unknown>) => record('drain', [], opts));
  program.parse([...argv], { from: 'user' });
  if (!parsed) program.help({ error: true });
  return parsed as QueueCommand;
}

/** Runs one `massgen queue` action. Returns the exit code. */
export async function runQueueCommand(
  command: QueueCommand,
  io: { cwd: string; env: Env; stdout: Write; stderr: Write; scrub: (text: string) => string },
): Promise<number> {
  // Job ids, batch line ids and failure reasons come from runs and their input: scrubbed and inert. JSON
  // stays JSON: `inertJson` spells what a terminal would act on as `\uXXXX` (the same data).
  const out = (text: string) => io.stdout(io.scrub(text));
  const json = (value: unknown, space?: number) => out(`${inertJson(value, space)}\n`);
  try {
    const { parseQueueLocation, queueStatus, retryDeadJobs, drainQueue, loadQueueSecret } =
      await import('../queue/index.js');
    const location = parseQueueLocation(command.queue, command.queueName);
    if (command.action === 'status') {
      const status = await queueStatus(location);
      if (command.json) {
        json(status, 2);
        return ExitCode.success;
      }
      const c = status.counts;
      out(`Queue "${status.queue}" on ${status.url}\n`);
      out(
        `  waiting ${c.waiting}, active ${c.active}, delayed ${c.delayed}, completed ${c.completed}, failed ${c.failed}\n`,
      );
      out(`  workers (${status.workers.length}): ${status.workers.join(', ') || 'none connected'}\n`);
      if (status.dead.length > 0) {
        out(`Dead-letter list (failed after their last attempt; massgen queue retry puts them back):\n`);
        for (const job of status.dead) {
          const line = job.batchId === null ? '' : ` (line id ${job.batchId})`;
          out(`  ${job.id}${line}: ${job.attempts} attempt${job.attempts === 1 ? '' : 's'}, ${job.reason}\n`);
        }
      }
      return ExitCode.success;
    }
    if (command.action === 'retry') {
      const signer =
        command.jobTimeout === undefined
          ? null
          : loadQueueSecret({
              env: io.env,
              cwd: io.cwd,
              ...(command.queueSecretFile === undefined ? {} : { file: command.queueSecretFile }),
            });
      const { retried, missing, refused } = await retryDeadJobs(location, command.ids, {
        signer,
        ...(command.jobTimeout === undefined ? {} : { timeoutMs: command.jobTimeout * 1000 }),
      });
      if (command.json) json({ retried, missing, refused });
      else {
        out(
          `Retried ${retried.length} job${retried.length === 1 ? '' : 's'}${retried.length > 0 ? `: ${retried.join(', ')}` : ''}` +
            `${command.jobTimeout !== undefined && retried.length > 0 ? ` (time limit ${command.jobTimeout} s)` : ''}\n`,
        );
        if (missing.length > 0)
          io.stderr(io.scrub(`massgen queue: not in the dead-letter list: ${missing.join(', ')}\n`));
        for (const { id, reason } of refused)
          io.stderr(io.scrub(`massgen queue: ${id} not retried: ${reason}\n`));
      }
      return missing.length > 0 || refused.length > 0 ? ExitCode.config : ExitCode.success;
    }
    const removed = await drainQueue(location, { dead: command.dead });
    if (command.json) json(removed);
    else
      out(
        `Removed ${removed.waiting} waiting job${removed.waiting === 1 ? '' : 's'}${command.dead ? ` and ${removed.dead} dead one${removed.dead === 1 ? '' : 's'}` : ''}\n`,
      );
    return ExitCode.success;
  } catch (error) {
    io.stderr(io.scrub(`massgen: error: ${describeError(error)}\n`));
    if (error instanceof MassGenError && error.hint) io.stderr(io.scrub(`hint: ${error.hint}\n`));
    return exitCodeForError(error);
  }
}
