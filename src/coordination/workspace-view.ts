import type { Phase } from '../types/events.js';
import type { SeenAnswers } from './coordination-state.js';
import type { ViewAnswer } from './prompts.js';
import type { RunContext } from './run-context.js';

/**
 * The workspace side of what an agent sees: the files behind the answers in its view, paths in
 * those answers rewritten so it can open them, and a note in its system prompt. Without workspaces
 * every function here is a no-op.
 */

/** Shows the viewer the snapshots behind the answers it sees (its own answer excepted). */
export async function showAnswerFiles(
  ctx: RunContext,
  viewerIndex: number,
  seen: SeenAnswers,
): Promise<void> {
  if (!ctx.workspaces) return;
  const { state } = ctx;
  const answers = [...seen]
    .filter(([index]) => index !== viewerIndex)
    .map(([index, version]) => ({
      agentId: state.agent(index).spec.id,
      anonymousId: state.agent(index).anonymousId,
      label: state.answerAt(index, version).label,
    }));
  await ctx.workspaces.showPeers(state.agent(viewerIndex).spec.id, answers);
}

/** Rewrites the answers of a view (by anonymous id) for the viewer. */
export function forViewer(
  ctx: RunContext,
  viewerIndex: number,
  answers: readonly ViewAnswer[],
): ViewAnswer[] {
  const hooks = ctx.workspaces;
  if (!hooks) return [...answers];
  const viewerId = ctx.state.agent(viewerIndex).spec.id;
  return answers.map((answer) => {
    const author = ctx.state.indexOfAnonymousId(answer.anonymousId);
    if (author === undefined || author === viewerIndex) return answer;
    return { ...answer, content: hooks.rewrite(answer.content, ctx.state.agent(author).spec.id, viewerId) };
  });
}

/** The system prompt with the agent's workspace note appended, when it has one. */
export function withWorkspaceNote(ctx: RunContext, agentId: string, phase: Phase, prompt: string): string {
  const note = ctx.workspaces?.describe(agentId, phase);
  return note ? `${prompt}\n\n${note}` : prompt;
}
