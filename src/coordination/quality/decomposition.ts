import type { ToolDefinition } from '../../types/messages.js';
import type { Subtask } from '../../types/quality-events.js';
import { oneOffCall } from '../one-off-call.js';
import type { RunContext } from '../run-context.js';
import type { DecompositionPlan } from './decomposition-plan.js';

/*
 * `coordination_mode: decomposition`: the plan (subtasks, one owner each, and the presenter) and the
 * per-subtask votes. The turn policy is in decomposition-turn.ts, the assembly in assembly.ts.
 */
import { asObject } from '../workflow-tools.js';
import { decompositionPrompt, PROPOSE_SUBTASKS } from './quality-prompts.js';

const proposeTool = (owners: readonly string[]): ToolDefinition => ({
  name: PROPOSE_SUBTASKS,
  description: 'Give the subtasks and who owns each.',
  parameters: {
    type: 'object',
    properties: {
      subtasks: {
        type: 'array',
        minItems: owners.length,
        maxItems: owners.length * 3,
        items: {
          type: 'object',
          properties: {
            title: { type: 'string' },
            description: { type: 'string' },
            owner: { type: 'string', enum: [...owners] },
          },
          required: ['title', 'description', 'owner'],
          additionalProperties: false,
        },
      },
    },
    required: ['subtasks'],
    additionalProperties: false,
  },
});

type Proposal = { title: string; description: string; owner: number }[];

/** Checks a proposal: titles, known owners, every active agent owning at least one subtask. */
function readProposal(ctx: RunContext, args: unknown): Proposal | string {
  const list = asObject(args)?.['subtasks'];
  if (!Array.isArray(list) || list.length === 0) return 'no subtasks were proposed';
  const proposal: Proposal = [];
  for (const entry of list) {
    const item = asObject(entry);
    const title = typeof item?.['title'] === 'string' ? item['title'].trim() : '';
    const description = typeof item?.['description'] === 'string' ? item['description'].trim() : '';
    const owner = ctx.state.indexOfAnonymousId(String(item?.['owner'] ?? ''));
    if (title === '' || owner === undefined) return 'a subtask had no title or an unknown owner';
    proposal.push({ title, description, owner });
  }
  const idle = ctx.state.active().filter((a) => !proposal.some((p) => p.owner === a.index));
  if (idle.length > 0) return `${idle.map((a) => a.anonymousId).join(', ')} owned no subtask`;
  return proposal;
}

/** The presenter: `presenter_agent` when it names an active agent, else the planner, else the first active. */
function presenterIndex(ctx: RunContext, planner: number | null): number {
  const named = ctx.settings.presenterAgentId;
  const active = ctx.state.active();
  const chosen =
    (named === null ? undefined : active.find((a) => a.spec.id === named)) ??
    (planner === null ? undefined : active.find((a) => a.index === planner)) ??
    active[0] ??
    ctx.state.agent(0);
  return chosen.index;
}

/**
 * Makes the plan before the first turn: from each agent's configured `subtask` when every agent has
 * one, else proposed by the first active agent (`propose_subtasks`). Emits `decomposition.planned`; on a
 * failed or invalid proposal, warns (`decomposition_failed`) and returns null — the run votes instead.
 */
export async function planDecomposition(
  ctx: RunContext,
  signal: AbortSignal,
): Promise<DecompositionPlan | null> {
  const { state } = ctx;
  const active = state.active();
  let planner: number | null = null;
  let proposal: Proposal | string;
  if (state.agents.every((a) => a.spec.subtask !== undefined && a.spec.subtask.trim() !== '')) {
    proposal = state.agents.map((a) => ({
      title: (a.spec.subtask ?? '').trim().split('\n')[0]?.slice(0, 80) ?? '',
      description: (a.spec.subtask ?? '').trim(),
      owner: a.index,
    }));
  } else {
    const proposer = active[0] ?? state.agent(0);
    planner = proposer.index;
    const { system, user } = decompositionPrompt(
      ctx.question,
      active.map((a) => a.anonymousId),
    );
    try {
      const { call } = await oneOffCall(
        ctx,
        proposer.index,
        {
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: user },
          ],
          tools: [proposeTool(active.map((a) => a.anonymousId))],
        },
        signal,
      );
      proposal = call ? readProposal(ctx, call.arguments) : 'the planner proposed no subtasks';
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      proposal = error instanceof Error ? error.message : String(error);
    }
  }
  if (typeof proposal === 'string') {
    ctx.emit({
      type: 'run.warning',
      code: 'decomposition_failed',
      key: 'orchestrator.coordination_mode',
      message: `decomposition: no usable subtask plan (${proposal}); the agents coordinate by voting instead`,
    });
    return null;
  }
  const subtasks: Subtask[] = proposal.map((p, i) => ({
    id: `S${i + 1}`,
    title: ctx.scrub(p.title),
    description: ctx.scrub(p.description),
    ownerId: state.agent(p.owner).spec.id,
    ownerAnonymousId: state.agent(p.owner).anonymousId,
  }));
  const plan: DecompositionPlan = {
    subtasks,
    owners: new Map(subtasks.map((s, i) => [s.id, (proposal as Proposal)[i]?.owner ?? 0])),
    presenter: presenterIndex(ctx, planner),
    planner,
    ballots: new Map(),
  };
  ctx.emit({
    type: 'decomposition.planned',
    plannerId: planner === null ? null : state.agent(planner).spec.id,
    presenterId: state.agent(plan.presenter).spec.id,
    subtasks,
  });
  return plan;
}

/** Counted per-subtask votes per owner's agent id (for `coordination.finished`). */
export function decompositionTallies(ctx: RunContext, plan: DecompositionPlan): Record<string, number> {
  const tallies: Record<string, number> = {};
  for (const [voter, ballot] of plan.ballots) {
    if (ctx.state.agent(voter).vote === null) continue;
    for (const { subtaskId } of ballot) {
      const owner = plan.owners.get(subtaskId);
      if (owner === undefined) continue;
      const id = ctx.state.agent(owner).spec.id;
      tallies[id] = (tallies[id] ?? 0) + 1;
    }
  }
  return tallies;
}

/** The presenter to use at the end: the planned one while active, else the first active agent. */
export function finalPresenter(ctx: RunContext, plan: DecompositionPlan): number | null {
  if (!ctx.state.agent(plan.presenter).dropped) return plan.presenter;
  return ctx.state.active()[0]?.index ?? null;
}
