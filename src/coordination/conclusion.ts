import { CancelledError, ExitCode } from '../types/errors.js';
import type { CoordinationEndReason } from '../types/events.js';
import { presentFinalAnswer } from './presentation.js';
import type { RunControl } from './run-control.js';
import { noAnswer, type ConcludedRun } from './run-outcome.js';
import { checkFinalAnswer, judgeWinner } from './selection.js';
import { assembleFinalAnswer } from './quality/assembly.js';
import { decompositionTallies, finalPresenter } from './quality/decomposition.js';

/**
 * Once coordination ended: picks the winner, reports it, and has it present. 'restart' when the
 * winner sent the final answer back for another attempt.
 */
export async function conclude(
  run: RunControl,
  reason: CoordinationEndReason,
): Promise<ConcludedRun | 'restart'> {
  const failed = {
    status: 'failed' as const,
    exitCode: ExitCode.runFailed,
    winnerId: null,
    finalAnswer: null,
  };
  const plan = run.decomposition;
  const tallies = plan
    ? decompositionTallies(run, plan)
    : Object.fromEntries(
        [...run.state.tallies()].map(([index, votes]) => [run.state.agent(index).spec.id, votes]),
      );
  // Decomposition: the presenter assembles once any part exists.
  let winnerIndex =
    reason === 'all_agents_failed' || reason === 'cancelled'
      ? null
      : plan
        ? run.state.currentAnswers().length > 0
          ? finalPresenter(run, plan)
          : null
        : run.state.pickWinner(run.state.finalists ?? undefined);
  if (winnerIndex !== null && !plan && run.settings.selection === 'judge' && run.stopReason !== 'cancelled') {
    winnerIndex = (await run.withPresentationTimeout((signal) => judgeWinner(run, signal))) ?? winnerIndex;
  }
  const winner = winnerIndex === null ? null : run.state.agent(winnerIndex);
  run.emit({
    type: 'coordination.finished',
    reason,
    winnerId: winner?.spec.id ?? null,
    winnerLabel: winnerIndex === null ? null : (run.state.latest(winnerIndex)?.label ?? null),
    tallies,
  });
  if (reason === 'cancelled') throw new CancelledError();
  if (reason === 'all_agents_failed')
    return (
      run.failures.unreachableOutcome(run.reachedProvider) ?? {
        ...failed,
        error: run.failures.allFailedError(),
      }
    );
  if (winnerIndex === null || !winner)
    return noAnswer(
      run.settings,
      run.maxTurns,
      reason === 'budget' ? 'budget' : reason === 'turn_limit' ? 'turn_limit' : 'timeout',
      'any agent submitted an answer',
    );
  const presenter = winnerIndex;
  const cancelled = () => run.stopReason === 'cancelled';
  const finalAnswer = await run.withPresentationTimeout((signal) =>
    plan
      ? assembleFinalAnswer(run, plan, presenter, signal, cancelled)
      : presentFinalAnswer(run, presenter, signal, cancelled),
  );
  if (await sentBack(run, presenter, finalAnswer)) return 'restart';
  return {
    status: 'completed' as const,
    exitCode: ExitCode.success,
    winnerId: winner.spec.id,
    finalAnswer,
  };
}

/**
 * `max_orchestration_restarts`: the winner checks the final answer; when it sends it back, the next
 * attempt starts from a clean slate with its reasons and instructions in every agent's view.
 */
async function sentBack(run: RunControl, winnerIndex: number, finalAnswer: string): Promise<boolean> {
  const max = run.settings.maxOrchestrationRestarts;
  if (run.restartNotes.length >= max || run.stopReason !== null) return false;
  const debug = run.restartNotes.length === 0 ? run.settings.debugFinalAnswer : null;
  if (debug !== null) {
    run.emit({
      type: 'run.warning',
      code: 'debug_final_answer',
      key: 'orchestrator.debug_final_answer',
      message:
        "the first attempt's final answer is checked as the config's debug_final_answer, not as written",
    });
  }
  const checked = debug === null ? finalAnswer : run.scrub(debug);
  const verdict = await run.withPresentationTimeout((signal) =>
    checkFinalAnswer(run, winnerIndex, checked, max - run.restartNotes.length, signal),
  );
  if (verdict.accepted || run.stopReason !== null) return false;
  // The winner's words go into every agent's prompt in the next attempt.
  run.restartNotes.push({
    reason: run.scrub(verdict.reason),
    instructions: run.scrub(verdict.instructions),
  });
  run.state.resetForRestart();
  run.quality?.reset();
  run.decomposition?.ballots.clear();
  run.emit({
    type: 'orchestration.restarted',
    attempt: run.restartNotes.length + 1,
    reason: verdict.reason,
    instructions: verdict.instructions,
  });
  return true;
}
