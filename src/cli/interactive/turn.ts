import type { PreparedRun } from '../../app/index.js';
import type { SessionRunner, SessionTurnOutcome } from '../../app/sessions.js';
import { CancelledError, describeError } from '../../types/errors.js';
import { inertText, inertWriter } from '../../util/terminal-text.js';
import { printAutomationFooter } from '../automation-display.js';
import { incompleteLogsWarning } from '../incomplete-logs.js';
import { displayPath } from './format.js';
import { printError } from './print-error.js';
import type { CreateTurnView, InteractiveIo, TurnView } from './types.js';

/** The turn in progress, and how often Ctrl-C was pressed during it. */
export interface ActiveTurn {
  readonly controller: AbortController;
  interrupts: number;
  prepared: PreparedRun | null;
  view: TurnView | null;
}

/**
 * Ctrl-C handling shared by the prompt loop and one-question runs: the first Ctrl-C during a turn
 * cancels that turn; a second one flushes its logs synchronously and asks to quit (exit code 130).
 * With no turn running, Ctrl-C asks to quit.
 */
export class TurnGuard {
  private current: ActiveTurn | null = null;

  constructor(
    private readonly io: InteractiveIo,
    private readonly quit: (code: number) => void,
  ) {}

  begin(): ActiveTurn {
    this.current = { controller: new AbortController(), interrupts: 0, prepared: null, view: null };
    return this.current;
  }

  end(): void {
    this.current = null;
  }

  readonly interrupt = (): void => {
    const turn = this.current;
    if (turn === null) {
      this.io.stdout('\n');
      this.quit(130);
      return;
    }
    turn.interrupts++;
    if (turn.interrupts === 1) {
      // The live view shows the cancellation itself; writing now would tear its frame.
      if (!turn.view?.live) this.io.stderr('\nmassgen: cancelling this turn — press Ctrl-C again to quit\n');
      turn.controller.abort(new CancelledError('cancelled by Ctrl-C'));
      return;
    }
    try {
      turn.prepared?.terminateSync({
        status: 'cancelled',
        exitCode: 130,
        error: { code: 'cancelled', message: 'interrupted again while cancelling the turn' },
      });
    } catch (error) {
      this.io.stderr(`massgen: could not write the logs: ${describeError(error)}\n`);
    }
    this.quit(130);
  };
}

const noView: TurnView = { handle: () => undefined, finish: async () => undefined };

/** Runs one question through `runner`, rendering it with a fresh view. Never rejects. */
export async function runViewedTurn(
  runner: SessionRunner,
  io: InteractiveIo,
  question: string,
  createView: CreateTurnView,
  turn: ActiveTurn,
  interruptTurn: () => void,
  onActiveRun?: (run: PreparedRun | null) => void,
): Promise<SessionTurnOutcome> {
  let viewFailed = false;
  const failed = (error: unknown) => {
    // A broken view must not break the run (or the session): say so once and go on without it.
    viewFailed = true;
    io.stderr(`massgen: the display failed: ${inertText(describeError(error))}\n`);
  };
  try {
    return await runner.runTurn(question, {
      signal: turn.controller.signal,
      onPrepared: (run) => {
        turn.prepared = run;
        onActiveRun?.(run);
        try {
          turn.view = createView(io, { interrupt: interruptTurn, signal: turn.controller.signal }, run);
        } catch (error) {
          failed(error);
          turn.view = noView;
        }
      },
      onEvent: (event) => {
        if (viewFailed) return;
        try {
          turn.view?.handle(event);
        } catch (error) {
          failed(error);
        }
      },
    });
  } finally {
    onActiveRun?.(null);
    try {
      await turn.view?.finish();
    } catch (error) {
      io.stderr(`massgen: the display failed: ${inertText(describeError(error))}\n`);
    }
  }
}

/**
 * After a turn with `--automation`: the same `KEY: value` lines as a one-question run (`WINNER`,
 * `ANSWER_FILE`, `COMPLETED`, or `STATUS_RESULT` and `ERROR`), then `SESSION` and `TURN`. Nothing else
 * reaches stdout, so a script reads a continued session as it reads any run.
 */
export function reportTurnAutomation(io: InteractiveIo, outcome: SessionTurnOutcome, debug = false): void {
  const { result } = outcome;
  if (outcome.prepareError !== null) {
    printError(io.stderr, outcome.prepareError, debug);
    return;
  }
  printAutomationFooter(io.stdout, result, Object.keys(result.usage).length);
  const incomplete = incompleteLogsWarning(result);
  if (incomplete) io.stderr(inertText(incomplete));
  if (outcome.storeError)
    io.stderr(
      `massgen: warning: this turn could not be saved: ${inertText(describeError(outcome.storeError))}\n`,
    );
  const stored = outcome.session?.turns.at(-1);
  if (outcome.session && stored) {
    const write = inertWriter(io.stdout);
    write(`SESSION: ${outcome.session.id}\n`);
    write(`TURN: ${stored.index}\n`);
  }
}

/**
 * After a turn: why it failed (stderr), where its logs and session files are (stdout). Error messages
 * may quote a model or a tool: they are written inert.
 */
export function reportTurn(io: InteractiveIo, outcome: SessionTurnOutcome, debug = false): void {
  const { result } = outcome;
  if (outcome.prepareError !== null) printError(io.stderr, outcome.prepareError, debug);
  else if (result.status !== 'completed' && result.error) {
    const prefix =
      result.status === 'cancelled' ? 'cancelled' : result.status === 'timeout' ? 'timed out' : 'run failed';
    io.stderr(`massgen: ${prefix}: ${inertText(result.error.message)}\n`);
  }
  if (result.logDir) io.stdout(`Logs: ${result.logDir}\n`);
  const incomplete = incompleteLogsWarning(result);
  if (incomplete) io.stderr(inertText(incomplete));
  if (outcome.storeError)
    io.stderr(
      `massgen: warning: this turn could not be saved: ${inertText(describeError(outcome.storeError))}\n`,
    );
  const stored = outcome.session?.turns.at(-1);
  if (outcome.turnDir && outcome.session && stored) {
    io.stdout(
      `Session ${outcome.session.id}, turn ${stored.index}: ${displayPath(outcome.turnDir, io.cwd)}\n`,
    );
  }
}
