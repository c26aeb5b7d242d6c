import type { PreparedRun } from '../../app/index.js';
import type { RunEvent } from '../../types/events.js';
import type { Write } from '../../app/plain-display.js';

/** What interactive mode needs from the process (tests pass a PassThrough as `stdin`). */
export interface InteractiveIo {
  stdout: Write;
  stderr: Write;
  /** Questions and commands, one per line. A terminal or a pipe. */
  stdin: NodeJS.ReadableStream;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Whether stdin and stdout are a terminal: line editing and history, and Ctrl-C arrives as a key
   * press. False for pipes: lines are read as they come (a script of questions and commands).
   */
  isTTY: boolean;
  /** Terminal width. */
  columns?: number;
  /**
   * Subscribes to the process's interrupts (SIGINT, SIGTERM). Needed where Ctrl-C reaches the process
   * as a signal rather than as a key (piped stdin). Returns the unsubscribe function.
   */
  onInterrupt?: (listener: () => void) => () => void;
}

/** The display of one turn: every event of the run, then `finish` once it has ended. */
export interface TurnView {
  handle(event: RunEvent): void;
  /** Called once after the turn's last event (restore the terminal, unmount…), before the next prompt. */
  finish(): Promise<void>;
  /** True while the view owns the whole screen: interactive mode then prints nothing until `finish`. */
  readonly live?: boolean;
}

/** What a turn's view may do to its turn. */
export interface TurnControl {
  /**
   * The same as Ctrl-C: the first call cancels the turn, a second one quits (exit code 130, logs
   * flushed). A view that reads keys itself (Ctrl-C in raw mode never becomes a signal) calls this.
   */
  interrupt(): void;
  /** Aborted when the turn is cancelled. */
  readonly signal: AbortSignal;
}

/**
 * Makes the display for each turn (plain text, the live terminal view…), once the turn's run is
 * prepared and before its first event (a turn whose run cannot even start gets no view). On a
 * terminal the view has stdin to itself while the turn runs: the prompt's readline is closed until
 * the turn has finished.
 */
export type CreateTurnView = (io: InteractiveIo, turn: TurnControl, run: PreparedRun) => TurnView;
