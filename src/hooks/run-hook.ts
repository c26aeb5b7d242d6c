import { randomUUID } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import os from 'node:os';
import { DEFAULT_HOOK_TIMEOUT_SECONDS, type CommandHookConfig } from '../config/hooks-schema.js';
import { bwrapArgs, homeLayout, scrubEnv } from '../tools/execute-command/index.js';
import { runProcess } from '../tools/execute-command/run-process.js';
import { MAX_HOOK_STDOUT_BYTES, MAX_HOOK_TEXT_CHARS, type HookRun } from './hook-output.js';

/** Where and how the run's hooks are started. */
export interface HookHost {
  /** The run's folder: where hooks start, and `CLAUDE_PROJECT_DIR`. */
  cwd: string;
  /** The caller's environment; hooks get a scrubbed copy (PATH, LANG, LC_*, TERM, TZ; never a secret). */
  env: Readonly<Record<string, string | undefined>>;
  /** bubblewrap, for hooks in the OS sandbox; null where there is none (the run refused to start then). */
  bwrap: string | null;
  /** A folder of the run's own: sandboxed hooks' HOME and TMPDIR, the only place they may write. */
  scratch: string;
  /** Files a sandboxed hook sees empty (the `.env` files the run loaded). */
  masked: readonly string[];
}

/** Marks every process a hook starts, so strays are found and stopped with it. */
const MARKER_VARIABLE = 'MASSGEN_HOOK_ID';

const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/**
 * Runs one command hook with `input` as JSON on its stdin — the only way a tool call's data reaches it:
 * the command line is the config's, run by `sh -c` as written. In the OS sandbox (default: the machine
 * read-only, home hidden, the run's folder readable, no network, only `scratch` writable) or, with
 * `sandbox: false`, on this machine. Stopped with its whole process group at its timeout or when the
 * run is cancelled; never throws.
 */
export async function runCommandHook(
  hook: CommandHookConfig,
  input: Record<string, unknown>,
  vars: Record<string, string>,
  host: HookHost,
  signal: AbortSignal,
): Promise<HookRun> {
  const timeoutSeconds = hook.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS;
  const id = randomUUID();
  const sandboxed = hook.sandbox !== false;
  const home = sandboxed ? host.scratch : os.homedir();
  const env = {
    ...scrubEnv(host.env, { home, tmpdir: sandboxed ? host.scratch : os.tmpdir() }),
    CLAUDE_PROJECT_DIR: host.cwd,
    ...vars,
    [MARKER_VARIABLE]: id,
  };
  const shell = ['/bin/sh', '-c', hook.command];
  let file: string;
  let args: string[];
  if (sandboxed) {
    if (host.bwrap === null)
      return notRun(timeoutSeconds, 'no OS sandbox here (mark the hook sandbox: false to run it unconfined)');
    const layout = homeLayout(host.env);
    const cwd = real(host.cwd);
    [file, args] = [
      host.bwrap,
      [
        ...bwrapArgs({
          workspace: host.scratch,
          readOnly: [...layout.readOnly, cwd],
          writable: [],
          hidden: layout.hidden,
          network: false,
          chdir: cwd,
          masked: () => host.masked.filter((f) => existsSync(f)).map(real),
        }),
        ...shell,
      ],
    ];
  } else {
    [file, args] = [shell[0]!, shell.slice(1)];
  }
  const result = await runProcess({
    file,
    args,
    cwd: host.cwd,
    env,
    timeoutMs: timeoutSeconds * 1000,
    signal,
    // One more byte than an answer may hold: more than that is refused whole, never half-read.
    maxOutputChars: MAX_HOOK_STDOUT_BYTES + 1,
    stderrChars: MAX_HOOK_TEXT_CHARS,
    input: JSON.stringify(input),
    marker: `${MARKER_VARIABLE}=${id}`,
  });
  return {
    exitCode: result.exitCode,
    stdout: result.totalBytes > MAX_HOOK_STDOUT_BYTES ? '' : result.output,
    stdoutBytes: result.totalBytes,
    stderr: result.stderr ?? '',
    timedOut: result.timedOut,
    timeoutSeconds,
    startError: result.startError,
  };
}

function notRun(timeoutSeconds: number, why: string): HookRun {
  return {
    exitCode: null,
    stdout: '',
    stdoutBytes: 0,
    stderr: '',
    timedOut: false,
    timeoutSeconds,
    startError: why,
  };
}
