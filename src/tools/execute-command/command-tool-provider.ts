import { randomUUID } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../../types/errors.js';
import type { ToolDefinition } from '../../types/messages.js';
import type { ToolContext, ToolResult } from '../../types/tool.js';
import type { CheckPath } from '../permissions/path-policy.js';
import type { ToolProvider } from '../tool-provider.js';
import { analyseCommand } from './command-policy.js';
import {
  CONTAINER_WORKSPACE,
  dockerKill,
  dockerRunArgs,
  type DockerSettings,
  findExecutable,
  hostUser,
} from './docker.js';
import { runProcess, type RunResult } from './run-process.js';
import { dockerClientEnv, scrubEnv } from './scrub-env.js';

export const EXECUTE_COMMAND_TOOL = 'execute_command';

/** Options of {@link createCommandToolProvider}. */
export interface CommandToolOptions {
  /** The agent's workspace (absolute, real path): where commands start, and their HOME. */
  workspace: string;
  /** The agent's path policy; every path a command names is checked against it before it runs. */
  checkPath: CheckPath;
  /** Longest a command may run (`command_timeout_seconds`); a call's `timeout_seconds` may only lower it. Default 120 s. */
  timeoutMs?: number;
  /** Longest output returned (start and end kept, the middle cut with a note). Default 20,000. */
  maxOutputChars?: number;
  /** The caller's environment. Commands get a scrubbed copy: PATH, LANG, LC_*, TERM, TZ, no secrets. */
  env: Readonly<Record<string, string | undefined>>;
  mode: 'local' | 'docker';
  /** Required in docker mode. */
  docker?: DockerSettings;
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

/** `1s`, `1.5s`, `120s`. */
export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : Number(seconds.toFixed(1))}s`;
}

/**
 * The `execute_command` tool: runs a shell command in the agent's workspace, locally (own process
 * group, scrubbed environment) or in a throwaway Docker container. Every command is checked first
 * (see `analyseCommand`): destructive commands and paths outside what the agent may use are refused
 * without running anything.
 */
export function createCommandToolProvider(options: CommandToolOptions): ToolProvider {
  const { workspace, checkPath, mode } = options;
  if (!path.isAbsolute(workspace))
    throw new Error(`The workspace must be an absolute path, not ${workspace}.`);
  if (mode === 'docker' && options.docker === undefined)
    throw new Error('Docker mode needs docker settings.');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeoutMs > 0)) throw new Error(`timeoutMs must be positive, not ${timeoutMs}.`);
  const maxOutputChars = Math.max(100, options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS);
  const outputChars = Math.max(100, maxOutputChars - RESERVED_CHARS);
  const shell = options.shell ?? defaultShell();
  const commandEnv = scrubEnv(options.env, { home: workspace, tmpdir: path.join(workspace, '.tmp') });
  const docker = options.docker;

  const definition: ToolDefinition = {
    name: EXECUTE_COMMAND_TOOL,
    description: describe({ workspace, timeoutMs, outputChars, mode, docker }),
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
    // In a container without network a command can touch only the mounted workspace; on this machine
    // it could reach the network, so planning mode defers it.
    annotations: {
      readOnly: false,
      destructive: true,
      ...(mode === 'docker' && docker?.network !== true ? { confined: true } : {}),
    },
  };

  const running = new Set<{ controller: AbortController; done: Promise<unknown> }>();
  let closed = false;

  const run = async (
    command: string,
    env: Record<string, string>,
    limitMs: number,
    signal: AbortSignal,
  ): Promise<RunResult> => {
    if (mode === 'local') {
      const id = randomUUID();
      const marker = `${MARKER_VARIABLE}=${id}`;
      return runProcess({
        file: shell,
        args: ['-c', command],
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
    return runProcess({
      file: binary,
      args: dockerRunArgs({ command, workspace, docker: docker!, name, user: hostUser(), env: containerEnv }),
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

      const env = mode === 'local' ? { ...commandEnv, TMPDIR: await tmpFolder(workspace) } : commandEnv;
      const verdict = await analyseCommand(command, {
        workspace,
        checkPath,
        phase: context.phase,
        env,
        ...(mode === 'docker' ? { containerWorkspace: CONTAINER_WORKSPACE } : {}),
      });
      if (!verdict.allowed) return { content: verdict.reason, isError: true };
      if (context.signal.aborted)
        return { content: 'Command not run: the call was cancelled.', isError: true };

      const controller = new AbortController();
      const forward = (): void => controller.abort(context.signal.reason);
      context.signal.addEventListener('abort', forward, { once: true });
      const done = run(command, env, limitMs, controller.signal);
      const entry = { controller, done: done.catch(() => {}) };
      running.add(entry);
      let result: RunResult;
      try {
        result = await done;
      } finally {
        running.delete(entry);
        context.signal.removeEventListener('abort', forward);
      }
      return formatResult(result, limitMs);
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
  mode: 'local' | 'docker';
  docker: DockerSettings | undefined;
}): string {
  const limit = formatSeconds(options.timeoutMs);
  const where =
    options.mode === 'docker'
      ? `in a fresh Docker container (${options.docker?.image ?? 'image'}) where your workspace is ${CONTAINER_WORKSPACE}${options.docker?.network ? '' : '; network access is off'}`
      : `on this machine in your workspace (${options.workspace})`;
  return [
    `Run a shell command ${where}. It starts in the workspace, which is also HOME; relative paths are relative to it.`,
    `Returns the exit code and the output (stdout and stderr together); output beyond ${options.outputChars} characters is truncated (start and end kept).`,
    `The command is killed after ${limit} (timeout_seconds can lower this); anything it leaves running in the background is stopped when it ends; stdin is empty, so do not start interactive programs.`,
    'Commands are checked before they run: paths outside your workspace and the folders you were given, destructive commands (rm -rf /, sudo, mkfs, shutdown…), and commands whose paths are only known at run time are refused with the reason.',
  ].join(' ');
}

function formatResult(result: RunResult, limitMs: number): ToolResult {
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
  if (result.timedOut) {
    return {
      content: `killed after ${formatSeconds(limitMs)} timeout\n${output}\n[The command did not finish in time. Make it faster, split it into smaller steps, or run it with a longer timeout_seconds if allowed.]`,
      isError: true,
    };
  }
  if (result.aborted) {
    return { content: `cancelled after ${formatSeconds(result.durationMs)}\n${output}`, isError: true };
  }
  const status =
    result.exitCode !== null
      ? `exit code ${result.exitCode}`
      : `killed by signal ${result.signal ?? 'unknown'}`;
  return { content: `${status}\n${output}` };
}
