import type { ChatMessage } from '../types/messages.js';
import { describeError, MassGenError, ModelBehaviourError } from '../types/errors.js';
import type { ErrorInfo } from '../types/events.js';
import { runModelStep } from './model-step.js';
import { enforcement, presentationSystemPrompt, presentationUserMessage } from './prompts.js';
import type { RunContext } from './run-context.js';
import { addUserNote, deliverHumanMessages, earlierHumanMessages } from './steering.js';
import { executeToolCalls, noTools } from './tool-step.js';
import { questionMessage } from './media-filter.js';
import { forViewer, showAnswerFiles, withWorkspaceNote } from './workspace-view.js';
import { finalAnswerStrategy, synthesisMessage } from './quality/synthesis.js';

/**
 * A free-form answer with the agent's ordinary tools and no workflow tools: model steps until one
 * makes no tool call. Returns that last step's text. Used for the final presentation and the
 * single-agent shortcut, both in the `presentation` phase (only then may tools write to `write` paths).
 */
export async function runAnswerLoop(
  ctx: RunContext,
  agentIndex: number,
  initial: readonly ChatMessage[],
  signal: AbortSignal,
): Promise<string> {
  const agent = ctx.state.agent(agentIndex);
  const agentId = agent.spec.id;
  const registry = agent.spec.tools ?? noTools;
  const messages = [...initial];
  // The user's messages: those the agent read while coordinating still apply; new ones at each step.
  const earlier = earlierHumanMessages(ctx, agentIndex);
  if (earlier) addUserNote(messages, earlier);
  for (let step = 1; step <= ctx.settings.maxStepsPerTurn; step++) {
    const human = deliverHumanMessages(ctx, agentIndex);
    if (human) addUserNote(messages, human);
    const tools = registry.list({ agentId, phase: 'presentation' });
    const output = await runModelStep(
      ctx,
      agentIndex,
      'presentation',
      step,
      { messages: [...messages], tools },
      signal,
    );
    if (output.toolCalls.length === 0) return output.text.trim();
    if (output.history) messages.splice(0, messages.length, ...output.history);
    messages.push({ role: 'assistant', content: output.text, toolCalls: output.toolCalls });
    const offered = new Set(tools.map((t) => t.name));
    messages.push(
      ...(await executeToolCalls(
        ctx,
        { agentId, phase: 'presentation', registry, offered, signal },
        output.toolCalls,
      )),
    );
  }
  throw new ModelBehaviourError(enforcement.tooManySteps(ctx.settings.maxStepsPerTurn));
}

function errorInfo(error: unknown): ErrorInfo {
  return { code: error instanceof MassGenError ? error.code : 'run_failed', message: describeError(error) };
}

/** Emits `presentation.finished` for the presenter's final answer and returns that answer. */
export function finishPresentation(
  ctx: RunContext,
  presenter: number,
  content: string,
  fallback: boolean,
  error?: ErrorInfo,
): string {
  const agent = ctx.state.agent(presenter);
  ctx.emit({
    type: 'presentation.finished',
    agentId: agent.spec.id,
    label: `${agent.anonymousId}.final`,
    content,
    fallback,
    ...(error ? { error } : {}),
  });
  return content;
}

/** A final answer to present: who, from which messages, and what stands if that fails. */
export interface Presentation {
  /** The presenting agent's index. */
  presenter: number;
  messages: readonly ChatMessage[];
  /** The answer when the call fails or comes back empty. */
  fallback: string;
  /** The error recorded when it comes back empty. */
  emptyMessage: string;
  signal: AbortSignal;
  /** Whether the run was cancelled: a failure then propagates instead of falling back. */
  isCancelled: () => boolean;
}

/**
 * The presenter's final answer from `messages` (a presentation or a decomposition's assembly). If the
 * call fails (for any reason but cancellation) or comes back empty, `fallback` is the answer instead:
 * a run that converged never ends without one.
 */
export async function presentOrFallBack(ctx: RunContext, presentation: Presentation): Promise<string> {
  const { presenter, messages, fallback, emptyMessage, signal, isCancelled } = presentation;
  try {
    const text = await runAnswerLoop(ctx, presenter, messages, signal);
    if (text === '') {
      return finishPresentation(ctx, presenter, fallback, true, {
        code: 'model_behaviour_error',
        message: emptyMessage,
      });
    }
    // The final answer goes to the user and, with max_orchestration_restarts, to the final check.
    return finishPresentation(ctx, presenter, ctx.scrub(text), false);
  } catch (error) {
    if (isCancelled()) throw error;
    return finishPresentation(ctx, presenter, fallback, true, errorInfo(error));
  }
}

/**
 * The winner presents the final answer. If the call fails (for any reason but cancellation) or
 * comes back empty, the winner's stored answer is used verbatim.
 */
export async function presentFinalAnswer(
  ctx: RunContext,
  winnerIndex: number,
  signal: AbortSignal,
  isCancelled: () => boolean,
): Promise<string> {
  const { state, settings } = ctx;
  const winner = state.agent(winnerIndex);
  const agentId = winner.spec.id;
  const stored = state.latest(winnerIndex)?.content ?? '';

  // `winner_reuse` (or `final_presentation: verbatim`): the stored answer, no extra call.
  const strategy = finalAnswerStrategy(settings);
  if (strategy === 'winner_reuse') {
    ctx.emit({ type: 'presentation.started', agentId, mode: 'verbatim' });
    return finishPresentation(ctx, winnerIndex, stored, false);
  }

  ctx.emit({ type: 'presentation.started', agentId, mode: 'present' });
  const votes = state.agents.flatMap((voter) =>
    voter.vote?.targetIndex === winnerIndex
      ? [{ voterAnonymousId: voter.anonymousId, reason: voter.vote.reason }]
      : [],
  );
  // The presenter reads what it could see while coordinating (all answers with `visibility: all`; its
  // neighbours, or the finalists, otherwise), so a large team's presentation stays O(k) too.
  await showAnswerFiles(ctx, winnerIndex, state.snapshot(winnerIndex));
  const answers = state.currentAnswers(winnerIndex).map((a) => {
    const author = state.agent(a.agentIndex);
    const [shown] = forViewer(ctx, winnerIndex, [{ anonymousId: author.anonymousId, content: a.content }]);
    return {
      agentId: author.spec.id,
      anonymousId: author.anonymousId,
      content: shown?.content ?? a.content,
      isOwn: a.agentIndex === winnerIndex,
    };
  });
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content: withWorkspaceNote(
        ctx,
        agentId,
        'presentation',
        presentationSystemPrompt(winner.spec.systemMessage, settings.planningMode, strategy === 'synthesize'),
      ),
    },
    // `synthesize` merges the top answers, with their votes and checklist scores.
    questionMessage(
      ctx,
      agentId,
      strategy === 'synthesize'
        ? synthesisMessage(ctx, winnerIndex)
        : presentationUserMessage(ctx.question, ctx.history, answers, votes, ctx.restartNotes),
    ),
  ];
  return presentOrFallBack(ctx, {
    presenter: winnerIndex,
    messages,
    fallback: stored,
    emptyMessage: 'the presentation was empty',
    signal,
    isCancelled,
  });
}

export { errorInfo };
