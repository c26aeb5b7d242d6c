import { execFile } from 'node:child_process';
import path from 'node:path';

/**
 * xdotool's command words, from every released version's dispatch table (3.2016 to 4.2026). xdotool
 * chains commands: wherever a command has taken its arguments, the next word that names a command
 * (compared case-insensitively) starts a new one, even after `--` — `key a exec sh -c …` runs a
 * program. So no word that reaches xdotool from a model may be one of these.
 */
export const XDOTOOL_COMMANDS = [
  'behave',
  'behave_screen_edge',
  'click',
  'exec',
  'get_desktop',
  'get_desktop_for_window',
  'get_desktop_viewport',
  'get_num_desktops',
  'getactivewindow',
  'getdisplaygeometry',
  'getmouselocation',
  'getwindowclassname',
  'getwindowfocus',
  'getwindowgeometry',
  'getwindowname',
  'getwindowpid',
  'help',
  'key',
  'keydown',
  'keyup',
  'mousedown',
  'mousemove',
  'mousemove_relative',
  'mouseup',
  'search',
  'selectwindow',
  'set_desktop',
  'set_desktop_for_window',
  'set_desktop_viewport',
  'set_num_desktops',
  'set_window',
  'sleep',
  'type',
  'version',
  'windowactivate',
  'windowclose',
  'windowfocus',
  'windowkill',
  'windowlower',
  'windowmap',
  'windowminimize',
  'windowmove',
  'windowquit',
  'windowraise',
  'windowreparent',
  'windowsize',
  'windowstate',
  'windowunmap',
] as const;

export type XdotoolCommandName = (typeof XDOTOOL_COMMANDS)[number];

/** One xdotool command and its options and arguments, e.g. `['click', '--repeat', '2', '1']`. */
export type XdotoolCommand = readonly [XdotoolCommandName, ...string[]];

const COMMAND_WORDS = new Set<string>(XDOTOOL_COMMANDS);

/** Whether xdotool would read `word` as a command (it compares case-insensitively). */
export function isXdotoolCommand(word: string): boolean {
  return COMMAND_WORDS.has(word.toLowerCase());
}

/**
 * The argument list for a chain of commands. Only the first word of each command may be a command
 * word; an argument that is one would let xdotool start a command nobody asked for, so it throws —
 * the callers check what the model sent first, and this is the last line should one of them miss.
 */
export function xdotoolArgv(chain: readonly XdotoolCommand[]): string[] {
  const argv: string[] = [];
  for (const [command, ...args] of chain) {
    const bad = args.find(isXdotoolCommand);
    if (bad !== undefined)
      throw new Error(`refusing to run xdotool ${command}: its argument "${bad}" is an xdotool command word`);
    argv.push(command, ...args);
  }
  return argv;
}

/**
 * Runs xdotool (`file`) with a checked chain — never through a shell — in `cwd` (the agent's
 * workspace, not massgen's folder), and returns its stdout.
 * `input` goes to its stdin (`type --file -` reads the text there, so typed words are never
 * arguments).
 */
export function runXdotool(
  file: string,
  chain: readonly XdotoolCommand[],
  options: { env: NodeJS.ProcessEnv; cwd: string; signal: AbortSignal; input?: string },
): Promise<string> {
  const argv = xdotoolArgv(chain);
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      argv,
      { env: options.env, cwd: options.cwd, signal: options.signal, maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${path.basename(file)} failed: ${stderr.trim() || error.message}`));
        else resolve(stdout);
      },
    );
    // An early exit closes the pipe; the error is xdotool's to report, not the write's.
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input ?? '');
  });
}
