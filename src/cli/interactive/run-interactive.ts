import type { PreparedRun } from '../../app/index.js';
import {
  createSessionRunner,
  type Session,
  type SessionRunner,
  type SessionRunnerOptions,
} from '../../app/sessions.js';
import { exitCodeForError } from '../../types/errors.js';
import { createPlainDisplay } from '../../app/plain-display.js';
import { inertText, inertWriter } from '../../util/terminal-text.js';
import { formatBanner, formatConfig, formatHistory, formatStatus, HELP_TEXT } from './format.js';
import { createLineInput } from './line-input.js';
import { printError } from './print-error.js';
import { reportTurn, reportTurnAutomation, runViewedTurn, TurnGuard } from './turn.js';
import type { CreateTurnView, InteractiveIo } from './types.js';

/** Options of {@link runInteractive}. */
export interface InteractiveOptions extends Omit<SessionRunnerOptions, 'cwd' | 'env' | 'session'> {
  io: InteractiveIo;
  /** A session to continue (from `loadSession`/`latestSession`): its turns are printed and become history. */
  session?: Session | null;
  /** The display of each turn. */
  createView: CreateTurnView;
  /** Stack traces with errors. */
  debug?: boolean;
  /** The run of the turn in progress (null between turns), e.g. for a synchronous log flush when the process crashes. */
  onActiveRun?: (run: PreparedRun | null) => void;
  /**
   * `--automation`: stdout holds only `KEY: value` lines (no banner, no echo, no prompt text), each
   * turn reported as a one-question run is ({@link reportTurnAutomation}).
   */
  automation?: boolean;
}

/**
 * The `--no-display` text view, per turn: plain streaming text, then the final answer and usage. It
 * adds no styling: everything it writes is made inert (escape sequences shown, never run).
 */
export function plainTurnView(options: { showReasoning?: boolean } = {}): CreateTurnView {
  return (io) => {
    const handle = createPlainDisplay(inertWriter(io.stdout), options);
    return { handle, finish: async () => undefined };
  };
}

const QUIT = new Set(['/quit', '/exit', '/q']);

/** The runner for interactive mode and one-question session runs; prints config errors. */
export function openRunner(
  options: Omit<InteractiveOptions, 'createView'> & { createView?: CreateTurnView },
): SessionRunner | number {
  const {
    io,
    debug: _debug,
    onActiveRun: _onActiveRun,
    createView: _createView,
    automation: _automation,
    ...runnerOptions
  } = options;
  try {
    return createSessionRunner({
      ...runnerOptions,
      cwd: io.cwd,
      // Already holds the `.env` files the CLI may load: a folder's own only when it is trusted.
      env: io.env,
    });
  } catch (error) {
    printError(io.stderr, error, options.debug);
    return exitCodeForError(error);
  }
}

/**
 * The interactive prompt: a banner, then `massgen> ` prompts. Each line that is not a command is the
 * next turn of the session, with the earlier questions and final answers as history. Resolves with the
 * exit code: 0 after `/quit`, `/exit`, `/q` or end of input (Ctrl-D), 130 after Ctrl-C at the prompt
 * or a second Ctrl-C during a turn (the first one cancels just that turn). Logs are flushed either way.
 */
export async function runInteractive(options: InteractiveOptions): Promise<number> {
  const { io, createView } = options;
  const runner = openRunner(options);
  if (typeof runner === 'number') return runner;

  const automation = options.automation === true;
  // With --automation stdout carries only KEY: value lines.
  const say = automation ? () => undefined : io.stdout;
  say(formatBanner(runner));
  if (runner.turns.length > 0) say(`Earlier turns:\n${formatHistory(runner.turns)}`);
  say('\n');

  let quitWith: ((code: number) => void) | null = null;
  const quitRequested = new Promise<number>((resolve) => (quitWith = resolve));
  const guard = new TurnGuard(io, (code) => quitWith?.(code));
  const input = createLineInput(io);
  input.onInterrupt(guard.interrupt);
  const unsubscribe = io.onInterrupt?.(guard.interrupt);

  try {
    for (;;) {
      input.prompt();
      const line = await Promise.race([input.next(), quitRequested.then((code) => ({ code }))]);
      if (line !== null && typeof line === 'object') return line.code;
      if (line === null) {
        say('\n');
        return 0;
      }
      if (!io.isTTY) say(`${inertText(line)}\n`);
      const text = line.trim();
      if (text === '') continue;

      if (text.startsWith('/')) {
        const command = (text.split(/\s+/)[0] ?? '').toLowerCase();
        if (QUIT.has(command)) return 0;
        switch (command) {
          case '/help':
            io.stdout(HELP_TEXT);
            break;
          case '/status':
            io.stdout(formatStatus(runner.status(), io.cwd));
            break;
          case '/history':
            io.stdout(formatHistory(runner.turns));
            break;
          case '/clear':
            runner.clear();
            io.stdout(`New session ${runner.sessionId}: earlier turns are no longer sent to the agents.\n`);
            break;
          case '/config':
            io.stdout(formatConfig(runner));
            break;
          default:
            io.stderr(`massgen: unknown command ${inertText(command)} — the commands are:\n`);
            io.stdout(HELP_TEXT);
        }
        continue;
      }

      const turn = guard.begin();
      await input.suspend();
      const running = runViewedTurn(runner, io, text, createView, turn, guard.interrupt, options.onActiveRun);
      const finished = await Promise.race([running, quitRequested.then((code) => ({ code }))]);
      guard.end();
      // A second Ctrl-C: quit now (the logs were flushed synchronously); the cancelled turn winds down.
      if ('code' in finished) return finished.code;
      if (automation) reportTurnAutomation(io, finished, options.debug);
      else reportTurn(io, finished, options.debug);
      say('\n');
    }
  } finally {
    unsubscribe?.();
    input.close();
  }
}
