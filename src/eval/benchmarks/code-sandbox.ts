import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { commandLimiter } from '../../tools/execute-command/limits.js';
import { runProcess } from '../../tools/execute-command/run-process.js';
import { bwrapArgs, homeLayout } from '../../tools/execute-command/sandbox.js';
import { sandboxSupport } from '../../tools/execute-command/sandbox-support.js';
import { DEFAULT_PATH } from '../../tools/execute-command/scrub-env.js';
import { ConfigError } from '../../types/errors.js';
import { findExecutable } from '../../util/find-executable.js';

/** How one program ended in the sandbox. */
export interface CodeRun {
  passed: boolean;
  /** `passed`, or why not: `exit code 1: AssertionError`, `timed out after 10 s`, a limit reached. */
  outcome: string;
}

/** Runs untrusted Python programs in massgen's OS sandbox; never on the host. */
export interface CodeSandbox {
  /** The interpreter the programs run with (its real path). */
  readonly python: string;
  run(program: string, signal?: AbortSignal): Promise<CodeRun>;
}

const MIB = 2 ** 20;
/** Each file a program writes, and its private `/tmp` (in memory): the only places it can write. */
const FILE_BYTES = 16 * MIB;
const TMP_BYTES = 64 * MIB;
/** Processes and threads at once: enough for `multiprocessing`, not for a fork bomb. */
const PROCESSES = 64;
/** Address space: a program that allocates without end gets MemoryError, not the machine's memory. */
const ADDRESS_SPACE_BYTES = 4 * 1024 * MIB;
const OUTPUT_CHARS = 4000;

const ProbeSchema = z.tuple([z.string().min(1), z.string().min(1), z.string().min(1)]);

/**
 * The interpreter behind `python3` on PATH and the folders it needs: asked of `python3` itself (a
 * fixed snippet of ours, no benchmark code), so shims (pyenv) and virtualenvs resolve to a real
 * binary the sandbox can run without the shim's home folder.
 */
function probePython(env: Readonly<Record<string, string | undefined>>): {
  executable: string;
  dirs: string[];
} {
  const python = findExecutable('python3', env.PATH);
  if (python === null)
    throw new ConfigError('HumanEval runs its tests with python3, which is not on PATH', {
      hint: 'install Python 3 (Debian/Ubuntu: apt-get install python3)',
    });
  const probeEnv: Record<string, string> = { PATH: env.PATH ?? DEFAULT_PATH };
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && /^(HOME|LANG|PYENV_ROOT|PYENV_VERSION)$/.test(name)) probeEnv[name] = value;
  const probe = spawnSync(
    python,
    ['-I', '-c', 'import json, sys; print(json.dumps([sys.executable, sys.base_prefix, sys.prefix]))'],
    { env: probeEnv, encoding: 'utf8', timeout: 30_000, cwd: os.tmpdir() },
  );
  let parsed: z.infer<typeof ProbeSchema> | null = null;
  try {
    const result = ProbeSchema.safeParse(JSON.parse(probe.stdout.trim().split('\n').at(-1) ?? ''));
    parsed = result.success ? result.data : null;
  } catch {
    parsed = null;
  }
  if (probe.status !== 0 || parsed === null)
    throw new ConfigError(
      `${python} does not run (${(probe.stderr || probe.error?.message || 'no output').trim().split('\n')[0]})`,
      {
        hint: 'HumanEval needs a working python3 on PATH',
      },
    );
  const [executable, basePrefix, prefix] = parsed;
  const real = realpathSync(executable);
  const dirs = [basePrefix, prefix, path.dirname(path.dirname(real))].filter((d) => existsSync(d));
  return { executable: real, dirs: [...new Set(dirs)] };
}

/**
 * The sandbox HumanEval's programs run in: bubblewrap with no network, the machine read-only (the
 * program's own throwaway folder too), the home hidden, a private `/tmp` in memory as the only place
 * to write, limits on processes, file size and address space, and a time limit; the environment is
 * PATH, LANG, HOME and TMPDIR only (no keys, no token). Without a working sandbox it refuses to start: the
 * code is never run on the host.
 *
 * @throws {ConfigError} naming what is missing (bubblewrap, user namespaces, python3).
 */
export function createCodeSandbox(
  env: Readonly<Record<string, string | undefined>>,
  options: { timeoutMs: number },
): CodeSandbox {
  const support = sandboxSupport(env.PATH);
  if (!support.ok)
    throw new ConfigError(
      `HumanEval runs the answers' code only in massgen's OS sandbox, and ${support.reason}`,
      {
        hint: support.hint,
      },
    );
  const { executable, dirs } = probePython(env);
  const home = homeLayout(env);
  return {
    python: executable,
    async run(program, signal = new AbortController().signal): Promise<CodeRun> {
      const folder = mkdtempSync(path.join(os.tmpdir(), 'massgen-humaneval-'));
      const id = randomUUID();
      // Nothing on disk is writable (see below), so only processes are watched: a watch of the disk
      // would count every other program writing to it meanwhile and fail right answers.
      const limiter = await commandLimiter(id, {
        processes: PROCESSES,
        writeBytes: Infinity,
        writable: [],
        // Memory is bounded by the address-space limit below (HumanEval's own guard), not a cgroup.
        memoryBytes: null,
      });
      try {
        writeFileSync(path.join(folder, 'program.py'), program);
        const sandboxArgs = bwrapArgs({
          workspace: folder,
          readOnly: [...home.readOnly, ...dirs],
          writable: [],
          hidden: home.hidden,
          network: false,
          tmpBytes: TMP_BYTES,
        });
        // The program's own folder is read-only too: it writes only to its private, bounded /tmp.
        sandboxArgs.splice(sandboxArgs.lastIndexOf('--chdir'), 0, '--remount-ro', folder);
        const args = [
          ...sandboxArgs,
          support.prlimit,
          `--nproc=${PROCESSES}`,
          `--fsize=${FILE_BYTES}`,
          `--as=${ADDRESS_SPACE_BYTES}`,
          '--',
          executable,
          '-I',
          '-B',
          'program.py',
        ];
        const wrapped = limiter.wrap(support.bwrap, args);
        const result = await runProcess({
          ...wrapped,
          cwd: folder,
          env: { PATH: DEFAULT_PATH, LANG: 'C.UTF-8', HOME: folder, TMPDIR: '/tmp' },
          timeoutMs: options.timeoutMs,
          signal,
          maxOutputChars: OUTPUT_CHARS,
          watch: (pid) => limiter.check(pid),
        });
        if (result.timedOut)
          return { passed: false, outcome: `timed out after ${options.timeoutMs / 1000} s` };
        if (result.limit) return { passed: false, outcome: result.limit.reason };
        if (result.aborted) return { passed: false, outcome: 'stopped' };
        if (result.startError) return { passed: false, outcome: `could not start: ${result.startError}` };
        if (result.exitCode === 0) return { passed: true, outcome: 'passed' };
        const last = result.output.trim().split('\n').at(-1)?.slice(0, 200) ?? '';
        const how = result.signal ? `killed by ${result.signal}` : `exit code ${result.exitCode}`;
        return { passed: false, outcome: last ? `${how}: ${last}` : how };
      } finally {
        await limiter.dispose();
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}
