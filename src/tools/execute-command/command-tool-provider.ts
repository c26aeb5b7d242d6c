import { randomUUID } from 'node:crypto';
import { accessSync, constants, realpathSync } from 'node:fs';
import { lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../../types/errors.js';
import type { ToolDefinition } from '../../types/messages.js';
import type { ToolContext, ToolResult } from '../../types/tool.js';
import type { ToolProvider } from '../tool-provider.js';
import { guardCommand } from './command-guard.js';
import {
  CONTAINER_WORKSPACE,
  dockerKill,
  dockerRunArgs,
  type DockerSettings,
  findExecutable,
  hostUser,
} from './docker.js';
import {
  type ExecutionMode,
  formatBytes,
  formatResult,
  formatSeconds,
  sandboxHint,
} from './command-result.js';
import { commandLimiter, DEFAULT_MAX_MEMORY_BYTES, DEFAULT_MAX_PROCESSES } from './limits.js';
import { runProcess, type RunRequest, type RunResult } from './run-process.js';
import { bwrapArgs, type SandboxLayout } from './sandbox.js';
import { dockerClientEnv, scrubEnv } from './scrub-env.js';

export const EXECUTE_COMMAND_TOOL = 'execute_command';

export { type ExecutionMode, formatSeconds };

/** 1 GiB. */
export const DEFAULT_MAX_FILE_SIZE_BYTES = 1024 ** 3;

/** Options of {@link createCommandToolProvider}. */
export interface CommandToolOptions {
  /** The agent's workspace (absolute, real path): where commands start, and their HOME. */
  workspace: string;
  /** Longest a command may run (`command_timeout_seconds`); a call's `timeout_seconds` may only lower it. Default 120 s. */
  timeoutMs?: number;
  /** Longest output returned (start and end kept, the middle cut with a note). Default 20,000. */
  maxOutputChars?: number;
  /** The caller's environment. Commands get a scrubbed copy: PATH, LANG, LC_*, TERM, TZ, no secrets. */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * `sandbox`: in an OS sandbox (bubblewrap) where only the workspace is writable; `docker`: in a
   * throwaway container; `local`: directly on this machine, unconfined.
   */
  mode: ExecutionMode;
  /** Required in docker mode. */
  docker?: DockerSettings;
  /** Required in sandbox mode: the bwrap binary and what a command may see in each phase. */
  sandbox?: { bwrap: string; layout: (phase: ToolContext['phase']) => SandboxLayout };
  /**
   * The most a command may write, in bytes: the largest file (RLIMIT_FSIZE), and how much the disk
   * holding the workspace may grow while it runs (and the size of the sandbox's `/tmp`). Default 1 GiB.
   */
  maxFileSizeBytes?: number;
  /** Sandbox and docker modes: the most processes (threads included) a command may run at once. Default 512. */
  maxProcesses?: number;
  /** Sandbox mode: the most memory a command may use, in bytes (`sandbox.memory`). Default 2 GiB. */
  maxMemoryBytes?: number;
  /** Local mode: the shell that runs commands (`<shell> -c <command>`). Default /bin/bash, else sh. */
  shell?: string;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_OUTPUT_CHARS = 20_000;
/** Room kept for the status line and notes, so the result stays within the registry's own limit. */
const RESERVED_CHARS = 400;
const MAX_COMMAND_CHARS = 100_000;
/** Environment variable marking every process a command starts, so escapees can be found. */
const MARKER_VARIABLE = 'MASSGEN_COMMAND_ID';

/**
 * The folder for TMPDIR: `.tmp` in the workspace, created if missing, unless something else took its
 * name (a symlink could point anywhere), in which case the workspace itself.
 */
async function tmpFolder(workspace: string): Promise<string> {
  const folder = path.join(workspace, '.tmp');
  try {
    await mkdir(folder, { recursive: true });
    const info = await lstat(folder);
    if (info.isDirectory() && !info.isSymbolicLink()) return folder;
  } catch {
    // Not creatable (read-only workspace?): fall back below.
  }
  return workspace;
}

function defaultShell(): string {
  try {
    accessSync('/bin/bash', constants.X_OK);
    return '/bin/bash';
  } catch {
    return 'sh';
  }
}

/**
 * The `execute_command` tool: runs a shell command in the agent's workspace — in an OS sandbox
 * (bubblewrap: the machine read-only, the workspace writable, home hidden, no network), in a
 * throwaway Docker container, or (`local`) unconfined. Each runs in its own process group with a
 * scrubbed environment and a file-size limit; everything it starts is stopped when it ends. The
 * boundary is the OS or the container: a short deny-list only turns a few never-wanted commands
 * (`rm -rf /`, `sudo`, fork bombs) into a friendly refusal.
 */
export function createCommandToolProvider(options: CommandToolOptions): ToolProvider {
  const { workspace, mode } = options;
  if (!path.isAbsolute(workspace))
    throw new Error(`The workspace must be an absolute path, not ${workspace}.`);
  if (mode === 'docker' && options.docker === undefined)
    throw new Error('Docker mode needs docker settings.');
  if (mode === 'sandbox' && options.sandbox === undefined)
    throw new Error('Sandbox mode needs the sandbox settings.');
  const maxFileSize = options.maxFileSizeBytes ?? DEFAULT_MAX_FILE_SIZE_BYTES;
  const maxProcesses = options.maxProcesses ?? DEFAULT_MAX_PROCESSES;
  const maxMemory = options.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES;
  // Its real path: the sandbox runs it, and a link on PATH may sit in a folder the sandbox hides.
  const found = findExecutable('prlimit', options.env.PATH);
  const prlimit = found === null ? null : realpathSync(found);
  if (mode === 'sandbox' && prlimit === null)
    throw new Error(
      "Sandbox mode needs util-linux's prlimit on PATH (for the process and file-size limits).",
    );
  /**
   * `file args` under the file-size limit (util-linux `prlimit`, where there is one) and, in the
   * sandbox, the process limit and `extra` limits: set inside the sandbox's user namespace, where the
   * process limit counts only the command's own processes.
   */
  const limited = (file: string, args: string[], sandboxed: string[] | null = null): string[] =>
    prlimit === null
      ? [file, ...args]
      : [
          prlimit,
          ...(sandboxed === null ? [] : [`--nproc=${maxProcesses}`, ...sandboxed]),
          `--fsize=${maxFileSize}`,
          '--',
          file,
          ...args,
        ];
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeoutMs > 0)) throw new Error(`timeoutMs must be positive, not ${timeoutMs}.`);
  const maxOutputChars = Math.max(100, options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS);
  const outputChars = Math.max(100, maxOutputChars - RESERVED_CHARS);
  const shell = options.shell ?? defaultShell();
  const commandEnv = scrubEnv(options.env, { home: workspace, tmpdir: path.join(workspace, '.tmp') });
  const docker = options.docker;

  const definition: ToolDefinition = {
    name: EXECUTE_COMMAND_TOOL,
    description: describe({
      workspace,
      timeoutMs,
      outputChars,
      mode,
      docker,
      sandbox: options.sandbox,
      limits: { bytes: maxFileSize, processes: maxProcesses, memory: maxMemory },
    }),
    parameters: {
      type: 'object',
      properties: {
        command: {
          type: 'string',
          minLength: 1,
          description: 'The shell command to run, e.g. "ls -la" or "npm test 2>&1 | tail -n 50".',
        },
        timeout_seconds: {
          type: 'number',
          minimum: 1,
          description: `Stop the command after this many seconds (at most ${timeoutMs / 1000}, the default).`,
        },
      },
      required: ['command'],
      additionalProperties: false,
    },
    // Sandboxed or in a container without network, a command can touch only the workspace; on this
    // machine it could reach anything, so planning mode defers it.
    annotations: {
      readOnly: false,
      destructive: true,
      ...((mode === 'docker' && docker?.network !== true) ||
      (mode === 'sandbox' && options.sandbox?.layout('coordination').network === false)
        ? { confined: true }
        : {}),
    },
  };

  const running = new Set<{ controller: AbortController; done: Promise<unknown> }>();
  let closed = false;

  const run = async (
    command: string,
    env: Record<string, string>,
    limitMs: number,
    signal: AbortSignal,
    phase: ToolContext['phase'],
  ): Promise<RunResult & { memoryPerProcess: boolean }> => {
    const id = randomUUID();
    const layout = mode === 'sandbox' ? options.sandbox!.layout(phase) : null;
    const limiter = await commandLimiter(id, {
      processes: mode === 'sandbox' ? maxProcesses : null,
      memoryBytes: mode === 'sandbox' ? maxMemory : null,
      writeBytes: maxFileSize,
      writable: [workspace, ...(layout?.writable ?? [])],
    });
    // Memory bounded per process (RLIMIT_AS): an allocation past it fails, and only the output tells.
    const memoryPerProcess = limiter.rlimits.some((option) => option.startsWith('--as='));
    const watched = (request: Omit<RunRequest, 'watch'>) =>
      runProcess({ ...request, watch: (pid) => limiter.check(pid) })
        .then((result) => ({ ...result, memoryPerProcess }))
        .finally(() => limiter.dispose());
    if (mode === 'local' || mode === 'sandbox') {
      const marker = `${MARKER_VARIABLE}=${id}`;
      // In the sandbox the command is pid 1's child in a pid namespace of its own: when it ends, the
      // kernel ends everything it started. The marker still finds strays in local mode.
      const [file, ...args] =
        layout !== null
          ? [
              options.sandbox!.bwrap,
              ...bwrapArgs({ ...layout, tmpBytes: maxFileSize }),
              ...limited(shell, ['-c', command], limiter.rlimits),
            ]
          : limited(shell, ['-c', command]);
      return watched({
        ...limiter.wrap(file!, args),
        cwd: workspace,
        env: { ...env, [MARKER_VARIABLE]: id },
        timeoutMs: limitMs,
        signal,
        maxOutputChars: outputChars,
        marker,
      });
    }
    const clientEnv = dockerClientEnv(options.env);
    const binary = findExecutable('docker', clientEnv.PATH);
    if (binary === null) throw new ToolError('Docker is not available: the docker command is not on PATH.');
    const name = `massgen-exec-${randomUUID()}`;
    const containerEnv: Record<string, string> = {};
    for (const key of ['LANG', 'TZ', 'TERM'])
      if (commandEnv[key] !== undefined) containerEnv[key] = commandEnv[key];
    return watched({
      file: binary,
      args: dockerRunArgs({
        command,
        workspace,
        docker: docker!,
        name,
        user: hostUser(),
        env: containerEnv,
        maxFileSizeBytes: maxFileSize,
        maxProcesses,
      }),
      cwd: workspace,
      env: clientEnv,
      timeoutMs: limitMs,
      signal,
      maxOutputChars: outputChars,
      onStop: () => dockerKill(binary, name, clientEnv),
    });
  };

  return {
    name: EXECUTE_COMMAND_TOOL,
    start: async () => {},
    tools: () => [definition],
    async precheck(toolName: string, args: Record<string, unknown>): Promise<string | null> {
      if (toolName !== EXECUTE_COMMAND_TOOL || typeof args.command !== 'string') return null;
      const verdict = guardCommand(args.command);
      return verdict.allowed ? null : verdict.reason;
    },
    async call(toolName: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
      if (toolName !== EXECUTE_COMMAND_TOOL)
        throw new ToolError(`${EXECUTE_COMMAND_TOOL} has no tool named "${toolName}"`);
      if (closed)
        return { content: 'execute_command is no longer available: the run is ending.', isError: true };
      const command = args.command;
      if (typeof command !== 'string' || command.trim() === '') {
        return { content: 'Give the command to run in "command" (a non-empty string).', isError: true };
      }
      if (command.length > MAX_COMMAND_CHARS) {
        return {
          content: `The command is ${command.length} characters long; the limit is ${MAX_COMMAND_CHARS}. Write long scripts to a file first, then run the file.`,
          isError: true,
        };
      }
      const requested = args.timeout_seconds;
      const limitMs =
        typeof requested === 'number' && Number.isFinite(requested) && requested > 0
          ? Math.min(timeoutMs, requested * 1000)
          : timeoutMs;

      const env = mode === 'docker' ? commandEnv : { ...commandEnv, TMPDIR: await tmpFolder(workspace) };
      const verdict = guardCommand(command);
      if (!verdict.allowed) return { content: verdict.reason, isError: true };
      if (context.signal.aborted)
        return { content: 'Command not run: the call was cancelled.', isError: true };

      const controller = new AbortController();
      const forward = (): void => controller.abort(context.signal.reason);
      context.signal.addEventListener('abort', forward, { once: true });
      const done = run(command, env, limitMs, controller.signal, context.phase);
      const entry = { controller, done: done.catch(() => {}) };
      running.add(entry);
      let result: RunResult & { memoryPerProcess: boolean };
      try {
        result = await done;
      } finally {
        running.delete(entry);
        context.signal.removeEventListener('abort', forward);
      }
      const hint =
        mode === 'sandbox'
          ? sandboxHint(workspace, options.sandbox!.layout(context.phase), maxFileSize)
          : null;
      return formatResult(result, {
        limitMs,
        maxFileSize,
        mode,
        hint,
        maxProcesses: mode === 'local' ? null : maxProcesses,
        maxMemory: result.memoryPerProcess ? maxMemory : null,
      });
    },
    async close(): Promise<void> {
      closed = true;
      const pending = [...running];
      for (const entry of pending) entry.controller.abort(new Error('The tool provider is closing.'));
      await Promise.all(pending.map((entry) => entry.done));
    },
  };
}

function describe(options: {
  workspace: string;
  timeoutMs: number;
  outputChars: number;
  mode: ExecutionMode;
  docker: DockerSettings | undefined;
  sandbox: CommandToolOptions['sandbox'];
  limits: { bytes: number; processes: number; memory: number };
}): string {
  const limit = formatSeconds(options.timeoutMs);
  const network = options.sandbox?.layout('coordination').network;
  const where =
    options.mode === 'docker'
      ? `in a fresh Docker container (${options.docker?.image ?? 'image'}) where your workspace is ${CONTAINER_WORKSPACE}${options.docker?.network ? '' : '; network access is off'}`
      : options.mode === 'sandbox'
        ? `in a sandbox on this machine, in your workspace (${options.workspace}): only the workspace is writable, the rest of the machine is read-only, the user's home folder is hidden${network ? '' : ' and network access is off'}`
        : `on this machine in your workspace (${options.workspace})`;
  return [
    `Run a shell command ${where}. It starts in the workspace, which is also HOME; relative paths are relative to it.`,
    `Returns the exit code and the output (stdout and stderr together); output beyond ${options.outputChars} characters is truncated (start and end kept).`,
    `The command is killed after ${limit} (timeout_seconds can lower this); anything it leaves running in the background is stopped when it ends; stdin is empty, so do not start interactive programs.`,
    `A command may write at most ${formatBytes(options.limits.bytes)}${options.mode === 'local' ? '' : ` and run at most ${options.limits.processes} processes at once`}${options.mode === 'sandbox' ? `, using at most ${formatBytes(options.limits.memory)} of memory` : ''}; going past that stops it.`,
    'A few commands are refused outright (rm -rf /, sudo, fork bombs, formatting disks).',
  ].join(' ');
}
