import type { RunContext, TurnPolicyPicker } from '../run-context.js';
import { setUpChecklist } from './criteria-setup.js';
import { planDecomposition } from './decomposition.js';
import type { DecompositionPlan } from './decomposition-plan.js';
import type { QualityBook } from './quality-book.js';
import { turnPolicyFor } from './policies.js';

/**
 * `coordination_mode: decomposition` plans the subtasks; `checklist_gated` sets up the criteria
 * (decomposition has per-subtask votes instead, so the gate does not apply there). Only for runs that
 * coordinate (two agents or more, not step mode): the caller decides that.
 */
export async function setUpQualityLoop(
  ctx: RunContext,
  signal: AbortSignal,
): Promise<{
  decomposition: DecompositionPlan | null;
  quality: QualityBook | null;
  /** The turn policies' picker: it comes with the plan or the book, so plain voting loads neither. */
  turnPolicy: TurnPolicyPicker;
}> {
  if (ctx.settings.coordinationMode === 'decomposition') {
    const decomposition = await planDecomposition(ctx, signal);
    if (decomposition && ctx.settings.votingSensitivity === 'checklist_gated')
      ctx.emit({
        type: 'run.warning',
        code: 'checklist_not_applied',
        key: 'orchestrator.voting_sensitivity',
        message:
          'voting_sensitivity: checklist_gated does not apply in decomposition mode (its votes are per subtask)',
      });
    if (decomposition) return { decomposition, quality: null, turnPolicy: turnPolicyFor };
  }
  const quality =
    ctx.settings.votingSensitivity === 'checklist_gated' ? await setUpChecklist(ctx, signal) : null;
  return { decomposition: null, quality, turnPolicy: turnPolicyFor };
}
