import { Command, InvalidArgumentError } from 'commander';
import type { Env } from '../app/essentials.js';
import type { Write } from '../app/plain-display.js';
import { ExitCode, MassGenError, describeError, exitCodeForError } from '../types/errors.js';
import { formatDuration } from './progress-bar.js';

/** `massgen worker`'s own command line. */
export interface WorkerOptions {
  queue: string;
  queueName: string;
  concurrency: number;
  config?: string;
  queueSecretFile?: string;
  maxAttempts: number;
  jobTimeout?: number;
  lockDuration: number;
  stalledInterval: number;
  logs?: boolean;
}

const whole = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number ≥ 1');
  return n;
};
const seconds = (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number of seconds');
  return n;
};

const workerExamples = `
A worker takes runs from the queue that massgen batch --queue and massgen serve --queue fill, and runs
them here: API keys from this machine's environment (and ./.env), logs in ./.massgen/massgen_logs.
Start any number, on any machines that reach the Redis server. It runs only configs it trusts: its own
(--config), or those of jobs signed with the queue secret it shares with the batch or server
(MASSGEN_QUEUE_SECRET or --queue-secret-file). Ctrl-C (or SIGTERM) stops taking runs and finishes those
in progress; a second one returns them to the queue for another worker; a third quits at once.

Examples:
  $ export MASSGEN_QUEUE_SECRET=$(cat ~/.massgen-queue-secret)   # the batch's too
  $ massgen worker --queue redis://127.0.0.1:6379
  $ massgen worker --queue rediss://:PASSWORD@queue.internal:6380 --config team.yaml --concurrency 8`;

/** Parses `massgen worker …`. Errors are commander's. */
export function parseWorkerArgs(argv: readonly string[]): WorkerOptions {
  const program = new Command('massgen worker')
    .description('Run the runs queued by massgen batch --queue and massgen serve --queue.')
    .requiredOption('--queue <url>', 'the Redis server holding the queue: redis://HOST:PORT')
    .option('--queue-name <name>', 'the queue on that Redis', 'massgen')
    .option('--concurrency <n>', 'runs at once', whole, 4)
    .option('-c, --config <file>', 'run every job with this config (the config text jobs carry is ignored)')
    .option(
      '--queue-secret-file <file>',
      'the secret jobs must be signed with (default: $MASSGEN_QUEUE_SECRET); their own configs then run',
    )
    .option('--max-attempts <n>', 'attempts a job gets at most, whatever it asks for', whole, 5)
    .option('--job-timeout <seconds>', 'stop a run after this long when its job names no timeout', seconds)
    .option(
      '--lock-duration <seconds>',
      'a run whose worker stops renewing its lock this long is taken over by another worker',
      seconds,
      30,
    )
    .option('--stalled-interval <seconds>', 'how often to look for runs whose worker died', seconds, 30)
    .option('--no-logs', 'do not write log folders (whatever the jobs ask)')
    .addHelpText('after', workerExamples)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stdout.write(text) })
    .showSuggestionAfterError(true);
  program.parse([...argv], { from: 'user' });
  const options = program.opts<WorkerOptions>();
  // Only an explicit --no-logs overrides what each job asks for.
  if (program.getOptionValueSource('logs') === 'default') delete options.logs;
  return options;
}

/** What `massgen worker` needs from the process. */
export interface WorkerCommandIo {
  cwd: string;
  env: Env;
  stdout: Write;
  stderr: Write;
  /** Every stop request (Ctrl-C, SIGTERM): the first finishes the runs, the second returns them. */
  onInterrupt?: (listener: () => void) => () => void;
  /** Fallback when `onInterrupt` is not there: aborts on the first stop request. */
  signal?: AbortSignal;
  scrub: (text: string) => string;
}

/** Runs a worker until it is stopped. Returns the exit code. */
export async function runWorkerCommand(options: WorkerOptions, io: WorkerCommandIo): Promise<number> {
  // Job ids come from the queue (a batch's line ids), messages from runs: everything is scrubbed and inert.
  const say = (text: string) => io.stderr(io.scrub(text));
  const out = (text: string) => io.stdout(io.scrub(text));
  const { parseQueueLocation, startQueueWorker, loadQueueSecret } = await import('../queue/index.js');
  let worker;
  try {
    const location = parseQueueLocation(options.queue, options.queueName);
    const signer = loadQueueSecret({
      env: io.env,
      cwd: io.cwd,
      ...(options.queueSecretFile === undefined ? {} : { file: options.queueSecretFile }),
    });
    let lastError = '';
    worker = await startQueueWorker({
      location,
      cwd: io.cwd,
      env: io.env,
      signer,
      maxAttempts: options.maxAttempts,
      concurrency: options.concurrency,
      lockDurationMs: options.lockDuration * 1000,
      stalledIntervalMs: options.stalledInterval * 1000,
      ...(options.config === undefined ? {} : { config: options.config }),
      ...(options.jobTimeout === undefined ? {} : { timeoutMs: options.jobTimeout * 1000 }),
      ...(options.logs === false ? { logging: false } : {}),
      onJob: (report) => {
        if (report.what === 'started') {
          out(`job ${report.jobId}: started${report.attempt > 1 ? ` (attempt ${report.attempt})` : ''}\n`);
        } else if (report.what === 'completed') {
          const { result } = report;
          const winner = result.winnerId ? `, winner ${result.winnerId}` : '';
          const log = result.logDir ? ` — ${result.logDir}` : '';
          out(
            `job ${report.jobId}: ${result.status}${winner} in ${formatDuration(result.durationMs / 1000)}${log}\n`,
          );
        } else if (report.what === 'refused') {
          say(`massgen worker: job ${report.jobId} ${report.message}\n`);
        } else {
          out(`job ${report.jobId}: ${report.what}: ${report.message}\n`);
        }
      },
      onNotice: (line) => say(`massgen worker: ${line}\n`),
      onError: (error) => {
        // The same trouble can repeat (a lock that cannot be renewed): said once per distinct message.
        const message = describeError(error);
        if (message === lastError) return;
        lastError = message;
        say(`massgen worker: ${message}\n`);
      },
    });
    out(
      `massgen worker ${worker.name}: taking runs from queue "${location.name}" on ${location.label}, ${options.concurrency} at once. Ctrl-C to stop.\n`,
    );
    say(
      signer
        ? `massgen worker: runs only jobs signed with the queue secret (${signer.source})${options.config ? `, each with ${options.config}` : ''}\n`
        : `massgen worker: no queue secret, so jobs are not checked: whoever can write to this Redis can put questions to ${options.config} (the config text jobs carry is ignored)\n`,
    );
  } catch (error) {
    say(`massgen: error: ${describeError(error)}\n`);
    if (error instanceof MassGenError && error.hint) say(`hint: ${error.hint}\n`);
    return exitCodeForError(error);
  }

  const running = worker;
  let stops = 0;
  const done = new Promise<number>((resolve) => {
    const stopped = () => resolve(ExitCode.success);
    const stop = () => {
      stops++;
      if (stops === 1) {
        say(
          `massgen worker: stopping — finishing ${running.active} run${running.active === 1 ? '' : 's'} in progress (stop again to return ${running.active === 1 ? 'it' : 'them'} to the queue)\n`,
        );
        void running.close().then(stopped);
      } else if (stops === 2) {
        say('massgen worker: returning the runs in progress to the queue (press Ctrl-C again to force)\n');
        void running.returnJobs().then(stopped);
      } else if (stops === 3) {
        // Whatever still waits (an unreachable Redis) is left: the runs' locks expire and another
        // worker takes them.
        say(
          'massgen worker: forced to stop — runs in progress go to another worker once their lock expires\n',
        );
        resolve(ExitCode.interrupted);
      }
    };
    if (io.onInterrupt) io.onInterrupt(stop);
    else if (io.signal) {
      if (io.signal.aborted) stop();
      else io.signal.addEventListener('abort', stop, { once: true });
    }
  });
  const code = await done;
  if (code === ExitCode.success) say('massgen worker: stopped\n');
  return code;
}
