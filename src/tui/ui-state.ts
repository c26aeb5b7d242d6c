/** The live view's UI state: which screen is shown, and how keys move between screens. */

export type UiMode = 'panels' | 'agent' | 'table' | 'votes';

export interface UiState {
  mode: UiMode;
  /** Index (in run order) of the agent whose transcript `agent` mode shows. */
  selectedAgent: number;
  /** Lines scrolled back from the end in the transcript, timeline and votes screens (0: follow). */
  scroll: number;
  /** `q` or Ctrl-C was pressed. */
  cancelRequested: boolean;
}

export const initialUiState = (): UiState => ({
  mode: 'panels',
  selectedAgent: 0,
  scroll: 0,
  cancelRequested: false,
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
