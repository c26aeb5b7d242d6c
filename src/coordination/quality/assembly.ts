import { questionMessage } from '../media-filter.js';
import type { ChatMessage } from '../../types/messages.js';
import { finishPresentation, presentOrFallBack } from '../presentation.js';
import type { RunContext } from '../run-context.js';
import { forViewer, showAnswerFiles, withWorkspaceNote } from '../workspace-view.js';
import type { DecompositionPlan } from './decomposition-plan.js';
import { assembledFallback, assemblySystemPrompt, assemblyUserMessage } from './quality-prompts.js';
import { finalAnswerStrategy } from './synthesis.js';

/**
 * Decomposition's final answer: the presenter assembles the latest part of every subtask, with the
 * per-subtask votes, into one answer. `winner_reuse` — or a failed or empty assembly — joins the parts
 * in subtask order instead (no model call for reuse).
 */
export async function assembleFinalAnswer(
  ctx: RunContext,
  plan: DecompositionPlan,
  presenter: number,
  signal: AbortSignal,
  isCancelled: () => boolean,
): Promise<string> {
  const { state, settings } = ctx;
  const agent = state.agent(presenter);
  const agentId = agent.spec.id;
  const parts = plan.subtasks.map((subtask) => {
    const owner = plan.owners.get(subtask.id) ?? -1;
    const latest = owner >= 0 ? state.latest(owner) : undefined;
    const [shown] = latest
      ? forViewer(ctx, presenter, [{ anonymousId: subtask.ownerAnonymousId, content: latest.content }])
      : [];
    const votes = [...plan.ballots].flatMap(([voter, ballot]) =>
      state.agent(voter).vote === null
        ? []
        : ballot
            .filter((b) => b.subtaskId === subtask.id)
            .map((b) => `${state.agent(voter).anonymousId}: ${b.reason || '(no reason given)'}`),
    );
    return { subtask, content: shown?.content ?? null, votes };
  });
  const fallback = assembledFallback(parts);
  if (finalAnswerStrategy(settings) === 'winner_reuse') {
    ctx.emit({ type: 'presentation.started', agentId, mode: 'verbatim' });
    return finishPresentation(ctx, presenter, fallback, false);
  }
  ctx.emit({ type: 'presentation.started', agentId, mode: 'present' });
  await showAnswerFiles(ctx, presenter, state.snapshot(presenter));
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content: withWorkspaceNote(
        ctx,
        agentId,
        'presentation',
        assemblySystemPrompt(agent.spec.systemMessage, settings.planningMode),
      ),
    },
    questionMessage(ctx, agentId, assemblyUserMessage(ctx.question, ctx.history, parts)),
  ];
  return presentOrFallBack(ctx, {
    presenter,
    messages,
    fallback,
    emptyMessage: 'the assembly was empty',
    signal,
    isCancelled,
  });
}
