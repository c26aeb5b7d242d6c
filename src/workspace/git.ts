import { execFile, execFileSync } from 'node:child_process';

/**
 * Running git for the isolated context paths (`write_mode: worktree`). Every call runs without the
 * user's hooks (a `post-checkout` or `pre-commit` hook must not run because massgen made a worktree or
 * a commit), without prompts, with a fixed identity for massgen's own commits, and in the C locale so
 * messages can be read back.
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

function environment(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // The caller's own GIT_DIR (a git hook running massgen) must not redirect these commands.
  for (const key of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PREFIX', 'GIT_COMMON_DIR'])
    delete env[key];
  return {
    ...env,
    ...IDENTITY,
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
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
];

/** Runs git; resolves with its exit code (never rejects for a non-zero exit). */
export function git(args: readonly string[], options: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...baseArgs(options.hooksPath), ...args],
      { cwd: options.cwd, env: environment(options.env), maxBuffer: MAX_BUFFER, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error && typeof (error as { code?: unknown }).code !== 'number') {
          reject(error);
          return;
        }
        resolve({ code: error ? Number((error as { code: number }).code) : 0, stdout, stderr });
      },
    );
  });
}

/** Runs git and returns its trimmed output; throws with git's own message on failure. */
export async function gitOk(args: readonly string[], options: GitOptions): Promise<string> {
  const result = await git(args, options);
  if (result.code !== 0) {
    throw new Error(
      `git ${args[0]} failed: ${(result.stderr || result.stdout).trim() || `exit ${result.code}`}`,
    );
  }
  return result.stdout.trim();
}

/** Synchronous, for process-exit cleanup; never throws. */
export function gitSync(args: readonly string[], options: GitOptions): boolean {
  try {
    execFileSync('git', [...baseArgs(options.hooksPath), ...args], {
      cwd: options.cwd,
      env: environment(options.env),
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
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
