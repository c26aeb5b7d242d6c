import { CancelledError, ExitCode } from '../types/errors.js';
import { turnFinisher } from './agent-failures.js';
import { errorInfo } from './presentation.js';
import type { RunControl } from './run-control.js';
import { noAnswer, type ConcludedRun } from './run-outcome.js';
import { runStepAction, type StepRequest } from './step-action.js';

/**
 * Step mode: the acting agent's one action, under the turn timeout and the orchestrator timeout. The
 * action itself travels as its event (`answer.submitted`, `vote.cast`, `presentation.finished`).
 */
export async function runStep(run: RunControl, step: StepRequest): Promise<ConcludedRun> {
  const index = run.state.agents.findIndex((a) => a.spec.id === step.agentId);
  const agent = run.state.agent(index);
  const finished = turnFinisher(run, agent, agent.turns + 1);
  try {
    const done = await run.withPresentationTimeout(
      (signal) => runStepAction(run, index, step, signal, () => run.stopReason === 'cancelled'),
      index,
    );
    if (done.kind === 'present')
      return {
        status: 'completed',
        exitCode: ExitCode.success,
        winnerId: agent.spec.id,
        finalAnswer: done.finalAnswer,
      };
    finished(done.outcome);
    return { status: 'completed', exitCode: ExitCode.success, winnerId: null, finalAnswer: null };
  } catch (error) {
    if (run.stopReason === 'cancelled') {
      finished('aborted');
      throw new CancelledError();
    }
    const stop = run.stopReason;
    if (stop === 'timeout' || stop === 'budget') {
      finished('aborted');
      return noAnswer(run.settings, run.maxTurns, stop, `${agent.spec.id} acted`);
    }
    const info = errorInfo(error);
    finished('failed', info);
    return {
      status: 'failed',
      exitCode: ExitCode.runFailed,
      winnerId: null,
      finalAnswer: null,
      error: info,
    };
  }
}
