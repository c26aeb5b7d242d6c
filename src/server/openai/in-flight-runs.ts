import { setMaxListeners } from 'node:events';
import type { PreparedRun } from '../../app/index.js';
import { CancelledError, ExitCode } from '../../types/errors.js';
import { linkedAbortController } from '../../util/abort.js';
import { PendingSet } from './pending-set.js';

/** Why the runs in flight are cancelled when the server stops (their logs and the access log say it). */
export const SHUTDOWN_REASON = 'massgen serve is shutting down';
/** Why a run's logs were closed for it: it had not ended when the shutdown's bound ran out. */
const FORCED_REASON = 'massgen serve stopped before the run had ended (shutdown bound reached)';

/** One accepted chat request, from the moment it asks for a run slot until its run is over. */
export interface InFlightRun {
  /** Aborts when the client goes away or the server stops: the run is cancelled. */
  readonly signal: AbortSignal;
  /** Aborts when the server stops waiting for the run (the shutdown's bound ran out): answer the client now. */
  readonly forced: AbortSignal;
  /** The run's handle, so that its logs can be closed synchronously if it does not end in time. */
  attach(run: PreparedRun): void;
  /** The run is over and its logs are closed, or it never started. Calls after the first do nothing. */
  end(): void;
}

/**
 * The runs a server has in flight, for its shutdown: {@link stop} cancels them all (and refuses the
 * requests waiting for a slot), {@link idle} says when the last one is over — logs closed — and
 * {@link force} gives up waiting. A run counts until its logs are closed, not until its answer is
 * sent, so a stopped server never exits while a run is still writing its log folder.
 */
export class InFlightRuns {
  private readonly entries = new PendingSet<{ run: PreparedRun | null }>();
  private readonly stopping = new AbortController();
  private readonly forcing = new AbortController();

  constructor() {
    // One listener per request in flight is the design (a thousand queued requests: a thousand), not a
    // leak: without this, Node warns "Possible EventTarget memory leak" on the server's stderr.
    setMaxListeners(0, this.stopping.signal, this.forcing.signal);
  }

  /** Runs (and requests waiting for a slot) in flight now. */
  get size(): number {
    return this.entries.size;
  }

  /** True once {@link stop} was called: new requests are refused. */
  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /** Starts tracking a request; `clientSignal` aborts when its client goes away. */
  begin(clientSignal: AbortSignal): InFlightRun {
    const entry: { run: PreparedRun | null } = { run: null };
    this.entries.add(entry);
    // Linked by hand, not AbortSignal.any: the listeners on the server-long signal go with the run.
    const { controller, dispose } = linkedAbortController(clientSignal, this.stopping.signal);
    return {
      signal: controller.signal,
      forced: this.forcing.signal,
      attach: (run) => {
        entry.run = run;
      },
      end: () => {
        dispose();
        this.entries.delete(entry);
      },
    };
  }

  /** Cancels every run in flight and every request waiting for a slot. Returns how many there were. */
  stop(): number {
    if (!this.stopped) this.stopping.abort(new CancelledError(SHUTDOWN_REASON));
    return this.entries.size;
  }

  /** Resolves once no run is in flight (each one's logs closed). */
  idle(): Promise<void> {
    return this.entries.idle();
  }

  /**
   * Gives up waiting: every run still in flight has its logs closed now, synchronously, as cancelled —
   * and only then is its client answered, so a client that reads the answer finds the logs final.
   * Returns how many runs were still in flight.
   */
  force(): number {
    const count = this.entries.size;
    this.terminateSync(FORCED_REASON);
    if (!this.forcing.signal.aborted) this.forcing.abort(new CancelledError(FORCED_REASON));
    return count;
  }

  /** For a process that exits now: closes the logs of every run in flight, synchronously, as cancelled. */
  terminateSync(message: string): void {
    for (const { run } of this.entries)
      run?.terminateSync({
        status: 'cancelled',
        exitCode: ExitCode.interrupted,
        error: { code: 'cancelled', message },
      });
  }
}
