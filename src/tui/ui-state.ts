import type { PendingApproval, ViewState } from './view-types.js';

/** The live view's UI state: which screen is shown, and how keys move between screens. */

export type UiMode = 'panels' | 'agent' | 'table' | 'votes';

/** The steering keys' part of the UI state (`steering-keys.ts` reads and moves it). */
export interface SteeringUi {
  /** The message being typed and who it is for (null: every agent); null while no input is open. */
  input: { target: string | null; text: string } | null;
  /** `a` was pressed: `y` (or Enter) confirms "answer now", `n` (or Esc) does not. */
  confirmAnswerNow: boolean;
  /** What the last message or "answer now" came to, shown in the footer until the next key. */
  notice: { text: string; ok: boolean } | null;
}

export const initialSteeringUi = (): SteeringUi => ({ input: null, confirmAnswerNow: false, notice: null });

export interface UiState {
  mode: UiMode;
  /** Index (in run order) of the agent whose transcript `agent` mode shows. */
  selectedAgent: number;
  /** Lines scrolled back from the end in the transcript, timeline and votes screens (0: follow). */
  scroll: number;
  /** `q` or Ctrl-C was pressed. */
  cancelRequested: boolean;
  /**
   * Approvals answered with `y`/`n` ({@link approvalKey}) whose `tool.approval.resolved` has not
   * arrived yet: the prompt moves on to the next one at once.
   */
  answered: string[];
  /** The message input (`m`), the "answer now" confirmation (`a`) and what the last one came to. */
  steering: SteeringUi;
}

export const initialUiState = (): UiState => ({
  mode: 'panels',
  selectedAgent: 0,
  scroll: 0,
  cancelRequested: false,
  answered: [],
  steering: initialSteeringUi(),
});

/** A key press, shaped like Ink's `useInput` arguments (`input` plus the flags of `Key`). */
export interface UiKey {
  input: string;
  ctrl?: boolean;
  escape?: boolean;
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
  return?: boolean;
  backspace?: boolean;
  delete?: boolean;
  tab?: boolean;
}

export interface UiContext {
  /** Agents in the run: digits past it are ignored. */
  agentCount: number;
  /** How far the current screen can scroll back (unbounded when omitted). */
  maxScroll?: number;
}

const PAGE = 10;

/**
 * Applies one key press. Returns the same object when the key means nothing, so callers can skip a
 * re-render. `1`..`9`: that agent's transcript; `r`: the timeline; `v`: the votes; `Esc`/`b`: back to
 * the panels; `←`/`→`: previous/next agent's transcript; `↑`/`↓`/PgUp/PgDn/Home/End: scroll;
 * `q`/Ctrl-C: request cancellation.
 */
export function reduceUi(ui: UiState, key: UiKey, context: UiContext): UiState {
  const input = key.input;
  if ((key.ctrl && input === 'c') || (!key.ctrl && input === 'q')) {
    return ui.cancelRequested ? ui : { ...ui, cancelRequested: true };
  }
  if (key.ctrl) return ui;
  if (key.escape || input === 'b') {
    return ui.mode === 'panels' && ui.scroll === 0 ? ui : { ...ui, mode: 'panels', scroll: 0 };
  }
  if (/^[1-9]$/.test(input)) {
    const index = Number(input) - 1;
    if (index >= context.agentCount) return ui;
    return { ...ui, mode: 'agent', selectedAgent: index, scroll: 0 };
  }
  if (input === 'r') return ui.mode === 'table' ? ui : { ...ui, mode: 'table', scroll: 0 };
  if (input === 'v') return ui.mode === 'votes' ? ui : { ...ui, mode: 'votes', scroll: 0 };
  if (ui.mode === 'agent' && context.agentCount > 0 && (key.leftArrow || key.rightArrow)) {
    const step = key.rightArrow ? 1 : -1;
    const selectedAgent = (ui.selectedAgent + step + context.agentCount) % context.agentCount;
    return { ...ui, selectedAgent, scroll: 0 };
  }
  if (ui.mode === 'panels') return ui;
  const max = Math.max(0, context.maxScroll ?? Number.MAX_SAFE_INTEGER);
  let scroll = ui.scroll;
  if (key.upArrow || input === 'k') scroll += 1;
  else if (key.downArrow || input === 'j') scroll -= 1;
  else if (key.pageUp) scroll += PAGE;
  else if (key.pageDown) scroll -= PAGE;
  else if (key.home) scroll = max;
  else if (key.end) scroll = 0;
  else return ui;
  scroll = Math.min(max, Math.max(0, scroll));
  return scroll === ui.scroll ? ui : { ...ui, scroll };
}

// --- approvals --------------------------------------------------------------------------------------

/** Identifies a held tool call (call ids are only unique per agent). */
export const approvalKey = (approval: Pick<PendingApproval, 'agentId' | 'callId'>): string =>
  `${approval.agentId}\u0000${approval.callId}`;

/** The approvals the prompt has still to ask about, oldest first. */
export function unansweredApprovals(view: ViewState, ui: UiState): PendingApproval[] {
  if (ui.answered.length === 0) return view.approvals;
  return view.approvals.filter((approval) => !ui.answered.includes(approvalKey(approval)));
}

/** The approval the prompt shows: the oldest pending one not answered yet, or null. */
export const currentApproval = (view: ViewState, ui: UiState): PendingApproval | null =>
  unansweredApprovals(view, ui)[0] ?? null;

/**
 * `y` approves and `n` denies the approval the prompt shows. Returns null for any other key, or when
 * nothing waits (then `y`/`n` mean nothing); else the answer and the UI state with the call marked as
 * answered (keys of calls no longer pending are forgotten).
 */
export function answerApproval(
  view: ViewState,
  ui: UiState,
  key: UiKey,
): { ui: UiState; approval: PendingApproval; approved: boolean } | null {
  if (key.ctrl || (key.input !== 'y' && key.input !== 'n')) return null;
  const approval = currentApproval(view, ui);
  if (!approval) return null;
  const pending = new Set(view.approvals.map(approvalKey));
  const answered = [...ui.answered.filter((k) => pending.has(k)), approvalKey(approval)];
  return { ui: { ...ui, answered }, approval, approved: key.input === 'y' };
}
