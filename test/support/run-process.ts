/**
 * Runs a helper program (a shell script, a skill's helper, another coding agent) to completion and
 * captures its output, for e2e tests that drive massgen through something other than its own CLI.
 */
import { spawn } from 'node:child_process';

export interface ProcessResult {
  /** Exit code, or null when the child was killed (e.g. by the timeout). */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ProcessOptions {
  cwd: string;
  /** The child's whole environment: nothing from this process is inherited unless passed here. */
  env: Record<string, string | undefined>;
  /** Kill the child (SIGKILL) after this long, so a hung helper fails its test instead of the suite. */
  timeoutMs: number;
}

/** Never rejects: asynchronous, so a fake server in this process keeps answering while the child runs. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: ProcessOptions,
): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
