import type { RunEvent } from '../types/events.js';
import { DEFAULT_COLUMNS } from './lines.js';
import { LiveViewStore, type SteeringOutcome } from './store.js';

export interface LiveViewOptions {
  stdout: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
  /** Called once, the first time the user presses `q` or Ctrl-C. The caller cancels the run. */
  onCancel: () => void;
  /**
   * Called when the user answers the approval prompt of a held tool call (`y`: approved, `n`: denied;
   * the keys only act while a call waits). The caller answers the run, e.g. `prepared.respondToApproval`.
   * Without it the prompt still shows, but `y`/`n` do nothing.
   */
  onApproval?: (agentId: string, callId: string, approved: boolean) => void;
  /**
   * Sends a message typed after `m` (to `agentId`, or every agent when null), e.g. `prepared.steer`.
   * Without it `m` does nothing and is not shown.
   */
  onMessage?: (text: string, agentId: string | null) => SteeringOutcome;
  /** "Answer now" (`a`, then `y`), e.g. `prepared.answerNow`. Without it `a` does nothing. */
  onAnswerNow?: () => SteeringOutcome;
  /** Overrides the terminal's width. */
  columns?: number;
  /** Overrides the terminal's height. */
  rows?: number;
}

export interface LiveViewHandle {
  /** Feeds one run event (cheap: renders are batched to at most one per ~50 ms). */
  handle(event: RunEvent): void;
  /**
   * Takes the live view down and prints the final screen (question, agents, the final answer in full,
   * outcome, tokens and cost) to stdout, where it stays in the scrollback. Restores the terminal
   * (raw mode off, cursor shown). Idempotent.
   */
  finish(): Promise<void>;
  /** Resolves once the view is on screen (Ink loads in the background; events meanwhile are kept). */
  readonly ready: Promise<void>;
}

/**
 * Starts the live multi-agent view (the default display on a terminal) and returns its handle.
 * Ctrl-C and `q` are handled here (Ink's own Ctrl-C exit is off): both call `onCancel` once. While a
 * tool call waits for approval, `y`/`n` answer it through `onApproval`. `m` types a message to the
 * agents (`onMessage`), `a` asks for the answer now (`onAnswerNow`).
 *
 * @example
 * ```ts
 * const view = startLiveView({ stdout: process.stdout, stdin: process.stdin, onCancel: () => controller.abort() });
 * for await (const event of prepared.stream()) view.handle(event);
 * await view.finish();
 * ```
 */
export function startLiveView(options: LiveViewOptions): LiveViewHandle {
  const store = new LiveViewStore({
    onCancel: options.onCancel,
    ...(options.onApproval ? { onApproval: options.onApproval } : {}),
    ...(options.onMessage ? { onMessage: options.onMessage } : {}),
    ...(options.onAnswerNow ? { onAnswerNow: options.onAnswerNow } : {}),
  });
  // Ink loads now, in the background: events until then go to the store and show on the first frame.
  const mounted = import('./live-view-render.js').then((m) => ({ ...m, ...m.mountLiveView(store, options) }));
  mounted.catch(() => {}); // Surfaces in finish().
  const ready = mounted.then(() => undefined);
  ready.catch(() => {}); // Awaited by whoever needs it.
  store.startClock();
  let finishing: Promise<void> | null = null;

  const finish = async (): Promise<void> => {
    const { view } = store.current();
    // An empty last frame erases the live view (React commits it asynchronously); the final screen
    // then replaces it.
    store.close();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const { unmount, exited, renderFinalScreen } = await mounted;
    unmount();
    await exited;
    const columns = options.columns ?? options.stdout.columns ?? DEFAULT_COLUMNS;
    const stdout = options.stdout;
    if (stdout.destroyed || stdout.writableEnded) return;
    stdout.write(`${renderFinalScreen(view, columns)}\n`);
  };

  return {
    handle: (event) => store.handle(event),
    finish: () => (finishing ??= finish()),
    ready,
  };
}
