import type { ToolCall, ToolDefinition } from '../../types/messages.js';
import type { SeenAnswers } from '../coordination-state.js';
import type { RunContext } from '../run-context.js';
import { asObject, VOTE, workflowToolDefinitions } from '../workflow-tools.js';
import type { DecompositionPlan } from './decomposition-plan.js';
import { decompositionSystemNote, subtaskBlock } from './quality-prompts.js';
import type { TurnPolicy, VoteTurn } from './turn-policy.js';

/** `vote` in decomposition mode: one entry per subtask part the voter can see. */
function subtaskVoteTool(subtaskIds: readonly string[]): ToolDefinition {
  return {
    name: VOTE,
    description:
      'Your part is complete: vote on every subtask part you can see — approve it, or say in the reason what still needs to change. One entry per subtask.',
    parameters: {
      type: 'object',
      properties: {
        votes: {
          type: 'array',
          minItems: subtaskIds.length,
          maxItems: subtaskIds.length,
          items: {
            type: 'object',
            properties: {
              subtask_id: { type: 'string', enum: [...subtaskIds] },
              reason: { type: 'string', description: 'Why the part is right, or what must change.' },
            },
            required: ['subtask_id', 'reason'],
            additionalProperties: false,
          },
        },
      },
      required: ['votes'],
      additionalProperties: false,
    },
  };
}

/**
 * One agent's turn in decomposition mode: its answers are its part, and its vote is a ballot with one
 * vote per subtask whose part it can see. It may vote only once its own part exists (or it may not
 * answer again), so consensus means every active owner delivered and everyone approved the latest parts.
 */
export function decompositionPolicy(
  ctx: RunContext,
  agentIndex: number,
  plan: DecompositionPlan,
): TurnPolicy {
  const { state } = ctx;
  const agent = state.agent(agentIndex);
  /** Subtasks whose owner's answer is in the view, in plan order. */
  const parts = (seen: SeenAnswers) => plan.subtasks.filter((s) => seen.has(plan.owners.get(s.id) ?? -1));

  return {
    ownCalls: new Set(),
    systemNote: decompositionSystemNote,
    openingNotes: () => [subtaskBlock(plan.subtasks, agent.anonymousId)],
    afterUpdate: () =>
      'DECOMPOSITION: make your part fit the new or changed parts, then `new_answer` with your part, or `vote` on every subtask part.',
    tools: (_votable, mayAnswer, seen) => {
      const visible = parts(seen);
      const mayVote = visible.length > 0 && (seen.has(agentIndex) || !mayAnswer);
      return [
        ...workflowToolDefinitions([], mayAnswer),
        ...(mayVote ? [subtaskVoteTool(visible.map((s) => s.id))] : []),
      ];
    },
    vote: async (call: ToolCall, turn: VoteTurn) => {
      const visible = parts(turn.seen);
      if (visible.length === 0 || (!turn.seen.has(agentIndex) && state.latest(agentIndex) === undefined)) {
        turn.refuse('Submit your own part with `new_answer` before you vote.');
        return 'continue';
      }
      const list = asObject(call.arguments)?.['votes'];
      const ids = visible.map((s) => s.id);
      const ballot: { subtaskId: string; reason: string }[] = [];
      for (const entry of Array.isArray(list) ? list : []) {
        const item = asObject(entry);
        const id = typeof item?.['subtask_id'] === 'string' ? item['subtask_id'].trim() : '';
        if (!ids.includes(id) || ballot.some((b) => b.subtaskId === id)) {
          turn.refuse(
            `"${id || '(none)'}" is not a subtask part to vote on once; vote on each of: ${ids.join(', ')}.`,
          );
          return 'continue';
        }
        ballot.push({ subtaskId: id, reason: ctx.scrub(String(item?.['reason'] ?? '')) });
      }
      const missing = ids.filter((id) => !ballot.some((b) => b.subtaskId === id));
      if (missing.length > 0) {
        turn.refuse(`Vote on every subtask part you can see; missing: ${missing.join(', ')}.`);
        return 'continue';
      }
      ballot.sort((a, b) => ids.indexOf(a.subtaskId) - ids.indexOf(b.subtaskId));
      const targets = ballot.map((b) => {
        const owner = plan.owners.get(b.subtaskId) as number;
        return { ...b, owner, label: state.answerAt(owner, turn.seen.get(owner) as number).label };
      });
      for (const t of targets) {
        const owner = state.agent(t.owner);
        ctx.emit({
          type: 'vote.cast',
          agentId: agent.spec.id,
          targetAgentId: owner.spec.id,
          targetAnonymousId: owner.anonymousId,
          targetLabel: t.label,
          reason: t.reason,
          counted: turn.current,
          subtaskId: t.subtaskId,
        });
      }
      if (!turn.current) {
        await turn.stale();
        return 'continue';
      }
      const first = targets[0] as (typeof targets)[number];
      plan.ballots.set(agentIndex, ballot);
      state.castVote(agentIndex, {
        targetIndex: first.owner,
        targetLabel: first.label,
        reason: first.reason,
      });
      return 'voted';
    },
  };
}
