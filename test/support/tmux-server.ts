/**
 * A private tmux server for tests that drive the CLI in a real terminal: its socket lives in the
 * test's folder (removed with it), so the user's own tmux sessions are never touched.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describeProcesses } from './process-report.js';
import { reportDir } from './tmux-cli-wrapper.js';

/** `tmux -V`, or null when tmux is not on PATH (the tests that need it are skipped). */
export const tmuxVersion = ((): string | null => {
  const probe = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  return probe.status === 0 ? probe.stdout.trim() : null;
})();

/** A tmux server on a socket in `dir`; its sessions are `columns` x `rows`. */
export function tmuxServer(dir: string, { columns, rows }: { columns: number; rows: number }) {
  const socket = path.join(dir, 'tmux.sock');
  const tmux = (...args: string[]): string => {
    const run = spawnSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${run.stderr}`);
    return run.stdout;
  };
  return {
    /** Starts `command` in a detached session named `name`. */
    start(name: string, command: string) {
      tmux('new-session', '-d', '-s', name, '-x', String(columns), '-y', String(rows), command);
    },
    /** Sends keys by tmux name (`Enter`, `C-c`, a letter). */
    keys(name: string, ...keys: string[]) {
      tmux('send-keys', '-t', name, ...keys);
    },
    /** Types `text` literally. */
    type(name: string, text: string) {
      tmux('send-keys', '-t', name, '-l', text);
    },
    /** Types `text` literally, then Enter. */
    typeLine(name: string, text: string) {
      tmux('send-keys', '-t', name, '-l', text);
      tmux('send-keys', '-t', name, 'Enter');
    },
    /** The whole pane: scrollback and screen, wrapped lines joined. */
    screen(name: string): string {
      try {
        return tmux('capture-pane', '-p', '-J', '-S', '-', '-t', name);
      } catch {
        return ''; // the session has ended
      }
    },
    /**
     * For a wait that timed out: the pane's screen and what its processes are doing (thread states,
     * wait channels, the CLI's JavaScript stack and event-loop handles).
     */
    async seen(name: string): Promise<string> {
      return paneState(tmux, name, dir);
    },
    kill() {
      spawnSync('tmux', ['-S', socket, 'kill-server']);
    },
  };
}

/** The screen of pane `name` and a report on its processes (see {@link describeProcesses}). */
export async function paneState(
  tmux: (...args: string[]) => string,
  name: string,
  dir: string,
): Promise<string> {
  let screen = '';
  let pid = NaN;
  try {
    screen = tmux('capture-pane', '-p', '-J', '-t', name);
    pid = Number(tmux('display-message', '-p', '-t', name, '#{pane_pid}').trim());
  } catch (error) {
    return `(the pane is gone: ${String(error)})`;
  }
  const processes = Number.isFinite(pid) ? await describeProcesses(pid, reportDir(dir)) : '';
  return `screen:\n${screen}\nprocesses:\n${processes}`;
}
