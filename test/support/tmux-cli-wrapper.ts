/**
 * The shell script a tmux pane runs to start the built CLI. The tmux server does not pass on this
 * process's environment, so the script rebuilds a clean one itself (PATH, HOME = the test folder, an
 * xterm), exactly as the harness's `cleanEnv` does for a child process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CLI_BIN } from '../e2e/cli-harness.js';

/** Where the CLI writes its diagnostic reports (`kill -USR2`). */
export const reportDir = (cwd: string): string => path.join(cwd, 'reports');

/** `text` as one single-quoted shell word. */
export const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * Writes `massgen.sh` in `cwd` and returns its path; it passes its arguments to the CLI, then runs
 * `afterExit` (a shell line that sees the CLI's exit code as `$?`), so a test can tell the run ended.
 */
export function writeCliWrapper(cwd: string, afterExit: string): string {
  const script = path.join(cwd, 'massgen.sh');
  const q = shellQuote;
  fs.writeFileSync(
    script,
    [
      '#!/bin/sh',
      `cd ${q(cwd)}`,
      // A diagnostic report on SIGUSR2 (into reports/), so a wait that times out can say where the CLI was.
      `env -i PATH=${q(process.env.PATH ?? '/usr/bin:/bin')} HOME=${q(cwd)} TERM=xterm-256color NODE_OPTIONS=${q(`--report-on-signal --report-directory=${reportDir(cwd)}`)} ${q(process.execPath)} ${q(CLI_BIN)} "$@"`,
      afterExit,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return script;
}

/**
 * A shell line that writes the CLI's exit code (`$?`) to `file`. Written under another name and then
 * renamed: the shell creates a file before it writes it, and a poll must never read it empty.
 */
export const recordExitCode = (file: string): string =>
  `echo $? > ${shellQuote(`${file}.part`)} && mv ${shellQuote(`${file}.part`)} ${shellQuote(file)}`;
