import type { RunContext } from '../run-context.js';
import { checklistPolicy } from './checklist-turn.js';
import { decompositionPolicy } from './decomposition-turn.js';
import type { TurnPolicy } from './turn-policy.js';

/**
 * The policy of one coordination turn: decomposition's when the run has a subtask plan, the checklist
 * gate's when it has criteria (not in an islands final round, which is for voting only), else none.
 */
export function turnPolicyFor(ctx: RunContext, agentIndex: number, finalRound: boolean): TurnPolicy | null {
  if (ctx.decomposition) return decompositionPolicy(ctx, agentIndex, ctx.decomposition);
  if (ctx.quality && !finalRound) return checklistPolicy(ctx, agentIndex, ctx.quality);
  return null;
}
