import { execFile, execFileSync } from 'node:child_process';

/**
 * Running git for the isolated context paths (`write_mode: worktree`). Every call runs without the
 * user's hooks (a `post-checkout` or `pre-commit` hook must not run because massgen made a worktree or
 * a commit), without prompts, with a fixed identity for massgen's own commits, in the C locale so
 * messages can be read back, and with an environment built from scratch ({@link gitEnvironment}).
 */

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  cwd: string;
  /** Extra environment (`GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`). */
  env?: Readonly<Record<string, string>>;
  /** A folder with no hooks in it: `core.hooksPath` points there. */
  hooksPath: string;
}

/** Output beyond this is an error: a diff that large is not reviewed here. */
const MAX_BUFFER = 256 * 1024 * 1024;

const IDENTITY = {
  GIT_AUTHOR_NAME: 'massgen',
  GIT_AUTHOR_EMAIL: 'massgen@localhost',
  GIT_COMMITTER_NAME: 'massgen',
  GIT_COMMITTER_EMAIL: 'massgen@localhost',
};

/**
 * What git is given of massgen's own environment: where programs are (`PATH`), where the user's git
 * configuration is (`HOME`, `XDG_CONFIG_HOME`: `safe.directory`, filters such as Git LFS), who the user
 * is (`USER`, `LOGNAME`), `TMPDIR` and `TZ`. Nothing else — no API key reaches git or a filter it runs,
 * and no `GIT_*` variable of the caller's: `GIT_DIR`, `GIT_INDEX_FILE`, `GIT_OBJECT_DIRECTORY`,
 * `GIT_NAMESPACE` or a replace-ref base would redirect these commands into another repository or
 * another view of this one, `GIT_*_PATHSPECS` would change what a path means, `GIT_EXEC_PATH`,
 * `GIT_EXTERNAL_DIFF` or `GIT_CONFIG_*` would run other programs, and `GIT_TRACE*` would mix into the
 * output read back.
 */
const INHERITED = /^(PATH|HOME|XDG_CONFIG_HOME|USER|LOGNAME|TMPDIR|TZ|SYSTEMROOT)$/;

/** The environment of every git child: {@link INHERITED} from `parent`, then massgen's own settings. */
export function gitEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined && INHERITED.test(name)) env[name] = value;
  }
  return {
    ...env,
    ...IDENTITY,
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    LANG: 'C',
    LC_ALL: 'C',
    LANGUAGE: 'C',
    ...extra,
  };
}

const baseArgs = (hooksPath: string) => [
  '-c',
  `core.hooksPath=${hooksPath}`,
  '-c',
  'commit.gpgSign=false',
  '-c',
  'core.quotePath=false',
  '-c',
  'advice.detachedHead=false',
  // A user's diff settings must not change the patches massgen reads, saves and shows.
  '-c',
  'diff.noprefix=false',
  '-c',
  'diff.mnemonicPrefix=false',
  '-c',
  'diff.relative=false',
  '-c',
  'core.fsmonitor=false',
];

function run<T extends 'utf8' | 'buffer'>(
  args: readonly string[],
  options: GitOptions,
  encoding: T,
): Promise<{ code: number; stdout: T extends 'utf8' ? string : Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...baseArgs(options.hooksPath), ...args],
      {
        cwd: options.cwd,
        env: gitEnvironment(process.env, options.env),
        maxBuffer: MAX_BUFFER,
        encoding,
      },
      (error, stdout, stderr) => {
        if (error && typeof (error as { code?: unknown }).code !== 'number') {
          reject(error);
          return;
        }
        resolve({
          code: error ? Number((error as { code: number }).code) : 0,
          stdout: stdout as T extends 'utf8' ? string : Buffer,
          stderr: String(stderr),
        });
      },
    );
  });
}

/** Runs git; resolves with its exit code (never rejects for a non-zero exit). */
export function git(args: readonly string[], options: GitOptions): Promise<GitResult> {
  return run(args, options, 'utf8');
}

const failure = (args: readonly string[], result: { code: number; stderr: string }, stdout = '') =>
  new Error(`git ${args[0]} failed: ${(result.stderr || stdout).trim() || `exit ${result.code}`}`);

/** Runs git and returns its trimmed output; throws with git's own message on failure. */
export async function gitOk(args: readonly string[], options: GitOptions): Promise<string> {
  const result = await git(args, options);
  if (result.code !== 0) throw failure(args, result, result.stdout);
  return result.stdout.trim();
}

/** Runs git and returns its exit code and its output as bytes (never rejects for a non-zero exit). */
export function gitRaw(
  args: readonly string[],
  options: GitOptions,
): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return run(args, options, 'buffer');
}

/** Runs git and returns its output as bytes (a file's content); throws on failure. */
export async function gitBytes(args: readonly string[], options: GitOptions): Promise<Buffer> {
  const result = await gitRaw(args, options);
  if (result.code !== 0) throw failure(args, result);
  return result.stdout;
}

/** Synchronous, for process-exit cleanup; never throws. */
export function gitSync(args: readonly string[], options: GitOptions): boolean {
  try {
    execFileSync('git', [...baseArgs(options.hooksPath), ...args], {
      cwd: options.cwd,
      env: gitEnvironment(process.env, options.env),
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

/** A path as a git pathspec that means exactly this file (no globbing). */
export const literal = (relPath: string) => `:(literal)${relPath}`;

/** Whether git can be run here at all. */
export function gitAvailable(): boolean {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore', env: gitEnvironment(process.env) });
    return true;
  } catch {
    return false;
  }
}
