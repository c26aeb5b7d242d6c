import type { SteeringUi, UiKey, UiState } from './ui-state.js';
import type { ViewState } from './view-types.js';

/**
 * Steering from the live view (docs/protocol.md "Steering"): `m` opens a one-line message (to every
 * agent, or to the agent whose transcript is open), Enter sends it, Esc drops it; `a` asks for the
 * answer now, `y` confirms. Pure: the store carries out the action and reports back in `notice`.
 */

/** What the live view may do: the keys work only with someone to carry them out, while the run goes. */
export interface SteeringAbility {
  canMessage: boolean;
  canAnswerNow: boolean;
}

export type SteeringAction = { type: 'steer'; text: string; agentId: string | null } | { type: 'answer-now' };

/** The longest message the input takes (the run's own limit). */
const MAX_INPUT = 4000;

/** Whether the view's run can be steered now (with callbacks to do it: `hasMessage`, `hasAnswerNow`). */
export function steeringAbility(
  view: ViewState,
  hasMessage: boolean,
  hasAnswerNow: boolean,
): SteeringAbility {
  const run = view.run;
  const running = run.phase !== 'starting' && run.phase !== 'finished';
  return {
    canMessage: hasMessage && running,
    canAnswerNow:
      hasAnswerNow &&
      running &&
      run.coordinationEnd === null &&
      run.agents.length > 1 &&
      run.phase === 'coordinating',
  };
}

const withSteering = (ui: UiState, steering: Partial<SteeringUi>): UiState => ({
  ...ui,
  steering: { ...ui.steering, ...steering },
});

/** Control characters: dropped from what is typed. */
// eslint-disable-next-line no-control-regex -- dropping control characters is the point
const CONTROLS = /[\x00-\x1f\x7f-\x9f]/g;

/** Typed text as one line: controls dropped, line breaks (a paste) become spaces. */
const typed = (input: string): string => input.replace(/\r\n|[\r\n\t]/g, ' ').replace(CONTROLS, '');

/**
 * Text pasted while the message input is open goes into it as typed text (line breaks become spaces;
 * a paste never sends). Returns null when no input is open: a paste is never taken as command keys.
 */
export function steeringPaste(ui: UiState, text: string): UiState | null {
  const input = ui.steering.input;
  if (!input) return null;
  return withSteering(ui, { input: { ...input, text: (input.text + typed(text)).slice(0, MAX_INPUT) } });
}

/**
 * Applies a key to the steering state. Returns null when the key is not a steering key (the caller
 * goes on with approvals and navigation), else the new UI state and the action to carry out, if any.
 * While the input or the confirmation is open every key goes to it, except Ctrl-C (cancel the run).
 */
export function steeringKey(
  ui: UiState,
  key: UiKey,
  view: ViewState,
  ability: SteeringAbility,
): { ui: UiState; action: SteeringAction | null } | null {
  const steering = ui.steering;
  if (key.ctrl && key.input === 'c') return null;
  if (steering.input) {
    const input = steering.input;
    if (key.escape) return { ui: withSteering(ui, { input: null }), action: null };
    if (key.return) {
      const text = input.text.trim();
      if (text === '' || !ability.canMessage) return { ui: withSteering(ui, { input: null }), action: null };
      return {
        ui: withSteering(ui, { input: null }),
        action: { type: 'steer', text, agentId: input.target },
      };
    }
    if (key.backspace || key.delete) {
      const chars = Array.from(input.text);
      return {
        ui: withSteering(ui, { input: { ...input, text: chars.slice(0, -1).join('') } }),
        action: null,
      };
    }
    if (key.ctrl && key.input === 'u')
      return { ui: withSteering(ui, { input: { ...input, text: '' } }), action: null };
    if (key.ctrl || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow || key.tab) {
      return { ui, action: null };
    }
    const text = (input.text + typed(key.input)).slice(0, MAX_INPUT);
    return { ui: withSteering(ui, { input: { ...input, text } }), action: null };
  }
  if (steering.confirmAnswerNow) {
    if (key.input === 'y' || key.return) {
      return {
        ui: withSteering(ui, { confirmAnswerNow: false }),
        action: ability.canAnswerNow ? { type: 'answer-now' } : null,
      };
    }
    if (key.input === 'n' || key.escape)
      return { ui: withSteering(ui, { confirmAnswerNow: false }), action: null };
    return { ui, action: null };
  }
  if (key.ctrl) return null;
  if (key.input === 'm' && ability.canMessage) {
    const agent = ui.mode === 'agent' ? view.run.agents[ui.selectedAgent] : undefined;
    return {
      ui: withSteering(ui, { input: { target: agent?.agentId ?? null, text: '' }, notice: null }),
      action: null,
    };
  }
  if (key.input === 'a' && ability.canAnswerNow) {
    return { ui: withSteering(ui, { confirmAnswerNow: true, notice: null }), action: null };
  }
  return null;
}
