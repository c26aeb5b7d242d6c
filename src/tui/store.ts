import type { RunEvent } from '../types/events.js';
import { inertValue } from '../util/terminal-text.js';
import {
  answerApproval,
  initialUiState,
  initialViewState,
  reduceUi,
  reduceView,
  type UiContext,
  type UiKey,
  type UiState,
  type ViewState,
} from './view-state.js';
import { steeringAbility, steeringKey, steeringPaste, type SteeringAbility } from './steering-keys.js';

/** What the live view renders: the reduced events, the UI state, and the time of the snapshot. */
export interface LiveViewSnapshot {
  view: ViewState;
  ui: UiState;
  now: number;
  /** The live view is being taken down: render nothing. */
  closed: boolean;
}

export interface LiveViewStoreOptions {
  /** Called once, the first time `q` or Ctrl-C is pressed. */
  onCancel?: () => void;
  /**
   * Called when `y` (approved) or `n` is pressed while a tool call waits for approval. Without it
   * `y`/`n` do nothing.
   */
  onApproval?: (agentId: string, callId: string, approved: boolean) => void;
  /**
   * Sends the message typed after `m` (to `agentId`, or every agent when null) and says how it went.
   * Without it `m` does nothing.
   */
  onMessage?: (text: string, agentId: string | null) => SteeringOutcome;
  /** "Answer now", confirmed with `a` then `y`; says how it went. Without it `a` does nothing. */
  onAnswerNow?: () => SteeringOutcome;
  /** Rendered snapshots are at most this often (events in between are batched). Default 50 ms. */
  flushMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

type Listener = () => void;

/** What a message or "answer now" came to: shown in the footer. */
export interface SteeringOutcome {
  ok: boolean;
  /** Why not, when refused. */
  message?: string;
}

/** A tool call's id goes back to the run with an approval: it must match as it came. */
const KEEP_AS_DATA: ReadonlySet<string> = new Set(['callId']);

/**
 * Holds the live view's state between the event stream and React. Events are reduced as they arrive
 * (cheap), but subscribers hear of them at most every `flushMs`, so thousands of text deltas cost a
 * few renders. Key presses publish at once. Shaped for `useSyncExternalStore`.
 */
export class LiveViewStore {
  private view: ViewState = initialViewState();
  private ui: UiState = initialUiState();
  private snapshot: LiveViewSnapshot;
  private readonly listeners = new Set<Listener>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private clock: ReturnType<typeof setInterval> | null = null;
  private dirty = false;
  private closed = false;
  private cancelled = false;
  private readonly flushMs: number;
  private readonly now: () => number;
  private readonly onCancel: (() => void) | undefined;
  private readonly onApproval: LiveViewStoreOptions['onApproval'];
  private readonly onMessage: LiveViewStoreOptions['onMessage'];
  private readonly onAnswerNow: LiveViewStoreOptions['onAnswerNow'];

  constructor(options: LiveViewStoreOptions = {}) {
    this.flushMs = options.flushMs ?? 50;
    this.now = options.now ?? Date.now;
    this.onCancel = options.onCancel;
    this.onApproval = options.onApproval;
    this.onMessage = options.onMessage;
    this.onAnswerNow = options.onAnswerNow;
    this.snapshot = { view: this.view, ui: this.ui, now: this.now(), closed: false };
  }

  readonly subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getSnapshot = (): LiveViewSnapshot => this.snapshot;

  /**
   * Reduces one event; the render follows within `flushMs`. Every text in it (a model's answer, a tool
   * result, an error) is made inert first, before any layout or styling: the live view and the final
   * screen show escape sequences and other terminal controls escaped, never run them.
   */
  handle(event: RunEvent): void {
    if (this.closed) return;
    this.view = reduceView(this.view, inertValue(event, KEEP_AS_DATA));
    this.dirty = true;
    if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.flush();
      }, this.flushMs);
      this.timer.unref?.();
    }
  }

  /** Whether `y`/`n` answer tool approvals (an `onApproval` was given). */
  get canApprove(): boolean {
    return this.onApproval !== undefined;
  }

  /**
   * Applies a key press and publishes at once. Calls `onCancel` the first time cancel is asked for,
   * and `onApproval` for `y`/`n` while a tool call waits for approval.
   */
  key(key: UiKey, context: Omit<UiContext, 'agentCount'> = {}): void {
    if (this.closed) return;
    if (this.steeringKey(key)) return;
    // A notice from the last message lasts until the next key.
    const noticed = this.ui.steering.notice !== null;
    if (noticed) this.ui = { ...this.ui, steering: { ...this.ui.steering, notice: null } };
    // The prompt on screen is the published one: answer that, not a newer one not yet shown.
    const answer = this.onApproval ? answerApproval(this.snapshot.view, this.ui, key) : null;
    if (answer) {
      this.ui = answer.ui;
      this.dirty = true;
      this.flush();
      this.onApproval?.(answer.approval.agentId, answer.approval.callId, answer.approved);
      return;
    }
    const ui = reduceUi(this.ui, key, { agentCount: this.view.run.agents.length, ...context });
    if (ui === this.ui) {
      if (noticed) {
        this.dirty = true;
        this.flush();
      }
      return;
    }
    this.ui = ui;
    this.dirty = true;
    this.flush();
    if (ui.cancelRequested && !this.cancelled) {
      this.cancelled = true;
      this.onCancel?.();
    }
  }

  /**
   * Takes text the terminal marked as pasted: into the message input when it is open, else dropped
   * (a paste is never read as keys, so pasting `q` cannot cancel the run).
   */
  paste(text: string): void {
    if (this.closed) return;
    const ui = steeringPaste(this.ui, text);
    if (!ui) return;
    this.ui = ui;
    this.dirty = true;
    this.flush();
  }

  /** What `m` and `a` can do now (the footer shows only the keys that work). */
  get steering(): SteeringAbility {
    return steeringAbility(this.snapshot.view, this.onMessage !== undefined, this.onAnswerNow !== undefined);
  }

  /** A steering key (`m`, `a`, typing into the message, the confirmation): true when it was one. */
  private steeringKey(key: UiKey): boolean {
    const handled = steeringKey(this.ui, key, this.snapshot.view, this.steering);
    if (!handled) return false;
    this.ui = handled.ui;
    const action = handled.action;
    if (action) {
      const outcome =
        action.type === 'steer'
          ? (this.onMessage?.(action.text, action.agentId) ?? { ok: false })
          : (this.onAnswerNow?.() ?? { ok: false });
      const done =
        action.type === 'steer'
          ? `✔ message sent to ${action.agentId ?? 'every agent'}`
          : '✔ answer now: coordination stops, the best answer so far is presented';
      const notice = outcome.ok
        ? { ok: true, text: done }
        : { ok: false, text: `✖ ${outcome.message ?? 'not possible now'}` };
      this.ui = { ...this.ui, steering: { ...this.ui.steering, notice } };
    }
    this.dirty = true;
    this.flush();
    return true;
  }

  /** Publishes what has been reduced so far. */
  flush(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (!this.dirty) return;
    this.dirty = false;
    this.publish();
  }

  /** Re-renders every `intervalMs` while the run is going, so the elapsed time ticks. */
  startClock(intervalMs = 1000): void {
    if (this.clock !== null) return;
    this.clock = setInterval(() => {
      if (this.view.run.phase === 'finished') return;
      this.flush();
      this.publish();
    }, intervalMs);
    this.clock.unref?.();
  }

  /** Stops the timers and publishes a last, empty (`closed`) snapshot. Later events are ignored. */
  close(): void {
    this.flush();
    if (this.clock !== null) clearInterval(this.clock);
    this.clock = null;
    this.closed = true;
    this.publish();
  }

  /** The state as reduced so far, published or not. */
  current(): { view: ViewState; ui: UiState } {
    return { view: this.view, ui: this.ui };
  }

  private publish(): void {
    this.snapshot = { view: this.view, ui: this.ui, now: this.now(), closed: this.closed };
    for (const listener of [...this.listeners]) listener();
  }
}
