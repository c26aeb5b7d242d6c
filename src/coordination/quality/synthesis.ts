import type { RunContext } from '../run-context.js';
import type { CoordinationSettings, FinalAnswerStrategy } from '../settings.js';
import { forViewer } from '../workspace-view.js';
import { synthesisUserMessage } from './quality-prompts.js';

/** How many answers `synthesize` merges at most. */
export const SYNTHESIS_TOP = 3;

/**
 * The strategy in force: `final_answer_strategy` when set, else what `final_presentation: verbatim`
 * (reuse) and `selection: synthesize` (synthesize) ask for, else the winner presents.
 */
export function finalAnswerStrategy(settings: CoordinationSettings): FinalAnswerStrategy {
  if (settings.finalAnswerStrategy !== null) return settings.finalAnswerStrategy;
  if (settings.finalPresentation === 'verbatim') return 'winner_reuse';
  return settings.selection === 'synthesize' ? 'synthesize' : 'winner_present';
}

/**
 * `synthesize`: the presenter's user message with the top answers it could see — ranked by counted
 * votes, then by their mean checklist score, then config order; at most {@link SYNTHESIS_TOP}, the
 * presenter's own always among them — each with every vote's reason and its mean score per criterion.
 */
export function synthesisMessage(ctx: RunContext, presenter: number): string {
  const { state } = ctx;
  const tallies = state.tallies();
  const book = ctx.quality;
  const ranked = state
    .currentAnswers(presenter)
    .map((answer) => ({
      answer,
      votes: tallies.get(answer.agentIndex) ?? 0,
      score: book?.meanAggregate(answer.agentIndex, answer.label) ?? -1,
    }))
    .sort((a, b) => b.votes - a.votes || b.score - a.score || a.answer.agentIndex - b.answer.agentIndex);
  const top = ranked.slice(0, SYNTHESIS_TOP);
  const own = ranked.find((r) => r.answer.agentIndex === presenter);
  if (own && !top.includes(own)) top[top.length - 1] = own;
  const answers = top.map(({ answer }) => {
    const author = state.agent(answer.agentIndex);
    const [shown] = forViewer(ctx, presenter, [{ anonymousId: author.anonymousId, content: answer.content }]);
    return {
      agentId: author.spec.id,
      anonymousId: author.anonymousId,
      content: shown?.content ?? answer.content,
      isOwn: answer.agentIndex === presenter,
      votes: state.agents.flatMap((voter) =>
        voter.vote?.targetIndex === answer.agentIndex
          ? [{ voter: voter.anonymousId, reason: voter.vote.reason }]
          : [],
      ),
      scores: book ? book.meanScores(answer.agentIndex, answer.label) : null,
    };
  });
  return synthesisUserMessage(ctx.question, ctx.history, answers, book?.criteria ?? [], ctx.restartNotes);
}
