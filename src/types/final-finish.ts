import type { RunEvent } from './events.js';

/**
 * Why the model stopped writing the final answer, derived from the run's events alone (views are
 * reducers over events): the `finishReason` of the presenter's last `presentation`-phase step between
 * `presentation.started` and `presentation.finished`. A verbatim presentation (no model call) and a
 * fallback to the stored answer leave it null: the text shown is then not that step's.
 */
export interface FinalFinish {
  /** The presenter while the final answer is being written, else null. */
  presenter: string | null;
  /** The presenter's last presentation step's finishReason so far. */
  lastStep: string | null;
  /** Set at `presentation.finished`: the finishReason of the step that wrote the final answer. */
  reason: string | null;
}

export const initialFinalFinish = (): FinalFinish => ({ presenter: null, lastStep: null, reason: null });

/** Applies one event; returns `previous` itself when nothing changed. */
export function reduceFinalFinish(previous: FinalFinish, event: RunEvent): FinalFinish {
  switch (event.type) {
    case 'presentation.started':
      return { presenter: event.agentId, lastStep: null, reason: null };
    case 'agent.step.finished':
      return event.phase === 'presentation' && event.agentId === previous.presenter
        ? { ...previous, lastStep: event.finishReason }
        : previous;
    case 'presentation.finished':
      return { presenter: null, lastStep: null, reason: event.fallback ? null : previous.lastStep };
    case 'orchestration.restarted':
      return initialFinalFinish();
    default:
      return previous;
  }
}

/**
 * The finishReason that means the final answer was cut off (`length`: the model reached its output
 * limit, `max_tokens`), or null when it ended on its own.
 */
export function cutOffReason(finish: FinalFinish): string | null {
  return finish.reason === 'length' ? finish.reason : null;
}

/** The one sentence every view shows for a cut-off final answer. */
export function cutOffText(reason: string): string {
  return `the final answer was cut off at the model's output limit (finishReason: ${reason}): raise the presenter's backend.max_tokens, or ask for a shorter answer`;
}
