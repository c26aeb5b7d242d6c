import { type ChildProcess, spawn } from 'node:child_process';
import { sleep } from '../../util/abort.js';
import { trackProcessTree } from '../../util/child-reaper.js';
import { OutputCapture } from './output-capture.js';
import { stopProcessGroup } from './process-group.js';

export interface RunRequest {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Stops the process early (cancellation). */
  signal: AbortSignal;
  maxOutputChars: number;
  /** Environment entry (`NAME=value`) that marks every process the command starts. */
  marker?: string | null;
  /** Extra work to stop it early (e.g. `docker kill`), before its process group is signalled. */
  onStop?: () => Promise<void>;
  /**
   * Asked every {@link WATCH_MS} while the program runs, and once when it has ended: a reason stops
   * it (a limit it went past) and is reported in {@link RunResult.limit}.
   */
  watch?: (pid: number) => Promise<string | null>;
  /** Written to the program's stdin, which is then closed (default: stdin closed at once). */
  input?: string;
  /** Capture stderr apart from stdout, cut to this many characters ({@link RunResult.stderr}). */
  stderrChars?: number;
}

/** How often {@link RunRequest.watch} is asked. */
export const WATCH_MS = 100;

export interface RunResult {
  /** Null when killed by a signal or not started. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** Stdout and stderr interleaved as they arrived (stdout alone with `stderrChars`), cut to `maxOutputChars` with a note. */
  output: string;
  /** Stderr on its own, when {@link RunRequest.stderrChars} asked for it. */
  stderr?: string;
  totalBytes: number;
  durationMs: number;
  /** Why the program could not be started at all. */
  startError: string | null;
  /** A limit the command went past (from {@link RunRequest.watch}), and whether it was stopped for it. */
  limit: { reason: string; stopped: boolean } | null;
}

/** How long the output pipes may stay open after the process group is gone (a process that escaped it). */
const PIPE_CLOSE_WAIT_MS = 1_000;

function whenClosed(child: ChildProcess, ms: number): Promise<void> {
  const streams = [child.stdout, child.stderr].filter((s) => s !== null);
  return new Promise((resolve) => {
    let open = streams.filter((s) => !s.closed).length;
    if (open === 0) return resolve();
    const timer = setTimeout(() => {
      for (const stream of streams) stream.destroy();
      resolve();
    }, ms);
    for (const stream of streams) {
      if (stream.closed) continue;
      stream.once('close', () => {
        if (--open === 0) {
          clearTimeout(timer);
          resolve();
        }
      });
    }
  });
}

/**
 * Runs a program as the leader of a new process group with stdin closed, capturing its output within
 * bounds. On timeout or cancellation the whole group is stopped (SIGTERM, then SIGKILL); when the
 * program ends, whatever it left running in its group is stopped too.
 */
export async function runProcess(request: RunRequest): Promise<RunResult> {
  const started = Date.now();
  const capture = new OutputCapture(request.maxOutputChars);
  const errors = request.stderrChars === undefined ? capture : new OutputCapture(request.stderrChars);
  const marker = request.marker ?? null;
  let child: ChildProcess;
  try {
    child = spawn(request.file, [...request.args], {
      cwd: request.cwd,
      env: request.env,
      detached: true,
      stdio: [request.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
  } catch (error) {
    return failed(started, error);
  }
  const pid = child.pid;
  // If massgen itself ends abruptly (a second Ctrl-C, a crash), the tree is killed at exit.
  const untrack = pid === undefined ? () => {} : trackProcessTree(pid, marker);
  child.stdout?.on('data', (chunk: Buffer) => capture.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => errors.push(chunk));
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.on('error', () => {});
  // A program that never reads its stdin (or exits first) must not stall us: EPIPE is ignored above.
  if (request.input !== undefined) child.stdin?.end(request.input);

  let timedOut = false;
  let aborted = false;
  let stopping: Promise<void> | undefined;
  const stop = (): void => {
    stopping ??= (async () => {
      try {
        await request.onStop?.();
      } catch {
        // The process group is stopped below either way.
      }
      if (pid !== undefined) await stopProcessGroup(pid, marker);
    })();
  };
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null } | { error: Error }>(
    (resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', (error) => resolve({ error }));
    },
  );
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, request.timeoutMs);
  const onAbort = (): void => {
    aborted = true;
    stop();
  };
  if (request.signal.aborted) onAbort();
  else request.signal.addEventListener('abort', onAbort, { once: true });
  let limit: RunResult['limit'] = null;
  let exited = false;
  const quiet = new AbortController();
  const watch = request.watch;
  const watching =
    watch && pid !== undefined
      ? (async () => {
          while (!exited && limit === null) {
            await sleep(WATCH_MS, quiet.signal).catch(() => {});
            if (exited) break;
            const reason = await watch(pid).catch(() => null);
            if (reason !== null && !exited) {
              limit = { reason, stopped: true };
              stop();
            }
          }
        })()
      : undefined;

  const end = await ended;
  exited = true;
  quiet.abort();
  await watching;
  clearTimeout(timer);
  request.signal.removeEventListener('abort', onAbort);
  // Background jobs (`cmd &`) must not outlive the call, whether it ended by itself or not.
  if (pid !== undefined) await stopProcessGroup(pid, marker);
  await stopping;
  untrack();
  await whenClosed(child, PIPE_CLOSE_WAIT_MS);
  // What it did in its last moments (a burst of writes) is checked once more.
  if (limit === null && watch && pid !== undefined) {
    const reason = await watch(pid).catch(() => null);
    if (reason !== null) limit = { reason, stopped: false };
  }

  const separate = () => (errors === capture ? {} : { stderr: errors.text() });
  if ('error' in end) {
    if (pid === undefined) return failed(started, end.error);
    return {
      exitCode: null,
      signal: null,
      timedOut,
      aborted,
      output: capture.text(),
      ...separate(),
      totalBytes: capture.totalBytes,
      durationMs: Date.now() - started,
      startError: end.error.message,
      limit,
    };
  }
  return {
    exitCode: end.code,
    signal: end.signal,
    timedOut,
    aborted: aborted && !timedOut,
    output: capture.text(),
    ...separate(),
    totalBytes: capture.totalBytes,
    durationMs: Date.now() - started,
    startError: null,
    limit,
  };
}

function failed(started: number, error: unknown): RunResult {
  return {
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    output: '',
    totalBytes: 0,
    durationMs: Date.now() - started,
    startError: error instanceof Error ? error.message : String(error),
    limit: null,
  };
}
