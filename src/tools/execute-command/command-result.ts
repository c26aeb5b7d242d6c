import type { ToolResult } from '../../types/tool.js';
import type { RunResult } from './run-process.js';

/** Where `execute_command` runs. */
export type ExecutionMode = 'sandbox' | 'local' | 'docker';

/** `1s`, `1.5s`, `120s`. */
export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : Number(seconds.toFixed(1))}s`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3 && bytes % 1024 ** 3 === 0) return `${bytes / 1024 ** 3} GiB`;
  if (bytes >= 1024 ** 2) return `${Math.round(bytes / 1024 ** 2)} MiB`;
  return `${bytes} bytes`;
}

/** What a sandboxed command that failed on a read-only or missing path should be told. */
export function sandboxHint(
  workspace: string,
  layout: { writable: readonly string[]; network: boolean },
  tmpBytes: number,
): string {
  const writable = [workspace, ...layout.writable].join(', ');
  return `[This command runs in a sandbox: only ${writable} ${layout.writable.length > 0 ? 'are' : 'is'} writable (and /tmp, which holds ${formatBytes(tmpBytes)}), the rest of the machine is read-only, the home folder is hidden${layout.network ? '' : ' and there is no network'}.]`;
}

/** Output that shows the sandbox got in the way (so the hint is worth its tokens). */
const SANDBOX_SYMPTOM =
  /Read-only file system|Permission denied|Network is unreachable|Could not resolve host|Temporary failure in name resolution|No such file or directory|No space left on device/;

/** What shells and runtimes print when the kernel refuses a fork (EAGAIN): the process limit. */
const FORK_REFUSED = /fork: (?:retry: )?Resource temporarily unavailable|Cannot fork|can't fork/;

/** What programs print when an allocation fails (Python, C, C++, Node/V8, Rust, Go, the JVM). */
const MEMORY_REFUSED =
  /MemoryError|Cannot allocate memory|out of memory|bad_alloc|allocation failed|Fatal process OOM|memory allocation of \d+ bytes failed|fatal error: runtime: cannot allocate|Could not reserve enough space/i;

/** Signals of a program that died on a failed allocation it did not check (or V8's deliberate trap). */
const CRASHES = new Set(['SIGSEGV', 'SIGABRT', 'SIGTRAP', 'SIGBUS']);

/** Whether a failed command looks like one whose allocation failed: its output, or a crash (128 + signal). */
function outOfMemory(result: RunResult): boolean {
  if (MEMORY_REFUSED.test(result.output)) return true;
  if (result.signal !== null) return CRASHES.has(result.signal);
  return result.exitCode !== null && [128 + 11, 128 + 6, 128 + 5, 128 + 7].includes(result.exitCode);
}

/** The tool result for a finished command: its status line (naming where it ran) and its output. */
export function formatResult(
  result: RunResult,
  options: {
    limitMs: number;
    maxFileSize: number;
    mode: ExecutionMode;
    hint: string | null;
    /** The process limit it ran under, if any. */
    maxProcesses: number | null;
    /** The memory limit each of its processes ran under (`sandbox.memory` as RLIMIT_AS), if any. */
    maxMemory?: number | null;
  },
): ToolResult {
  const { limitMs } = options;
  const output = result.output === '' ? '(no output)' : result.output;
  if (
    result.startError !== null &&
    result.exitCode === null &&
    result.signal === null &&
    !result.timedOut &&
    !result.aborted
  ) {
    return { content: `The command could not be started: ${result.startError}`, isError: true };
  }
  if (result.limit?.stopped) {
    return { content: `stopped: ${result.limit.reason}\n${output}`, isError: true };
  }
  if (result.timedOut) {
    return {
      content: `killed after ${formatSeconds(limitMs)} timeout\n${output}\n[The command did not finish in time. Make it faster, split it into smaller steps, or run it with a longer timeout_seconds if allowed.]`,
      isError: true,
    };
  }
  if (result.aborted) {
    return { content: `cancelled after ${formatSeconds(result.durationMs)}\n${output}`, isError: true };
  }
  if (result.signal === 'SIGXFSZ' || /File size limit exceeded/.test(result.output)) {
    return {
      content: `stopped: the command tried to write a file larger than the ${formatBytes(options.maxFileSize)} limit (command_max_file_size_mb)\n${output}`,
      isError: true,
    };
  }
  // The mode is on the status line, so events, logs and the model all see where the command ran.
  const status = `${
    result.exitCode !== null
      ? `exit code ${result.exitCode}`
      : `killed by signal ${result.signal ?? 'unknown'}`
  } (${options.mode})`;
  // It finished before the watch caught it (a fork bomb's shell returns at once, and the sandbox
  // ends the rest with it): reported as a failure all the same.
  const reason =
    result.limit?.reason ??
    (options.maxProcesses !== null && FORK_REFUSED.test(result.output)
      ? `the command reached the limit of ${options.maxProcesses} processes (command_max_processes)`
      : null) ??
    // Under RLIMIT_AS an allocation past the bound just fails: the program's words or its crash tell.
    (options.maxMemory != null && result.exitCode !== 0 && outOfMemory(result)
      ? `the command may have run out of memory: each of its processes may use at most ${formatBytes(options.maxMemory)} (sandbox.memory)`
      : null);
  if (reason !== null) return { content: `${status}, but ${reason}\n${output}`, isError: true };
  const failed = result.exitCode !== 0 && options.hint !== null && SANDBOX_SYMPTOM.test(result.output);
  return { content: `${status}\n${output}${failed ? `\n${options.hint}` : ''}` };
}
