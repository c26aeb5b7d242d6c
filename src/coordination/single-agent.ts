import { questionMessage } from './media-filter.js';
import { CancelledError, describeError, ExitCode } from '../types/errors.js';
import { recordFailure, turnFinisher } from './agent-failures.js';
import { runAnswerLoop } from './presentation.js';
import { directSystemPrompt, directUserMessage } from './prompts.js';
import type { RunControl } from './run-control.js';
import { noAnswer, type ConcludedRun } from './run-outcome.js';
import { withWorkspaceNote } from './workspace-view.js';

/** A single configured agent answers once, directly, and that answer is final. */
export async function runSingleAgent(run: RunControl): Promise<ConcludedRun> {
  const agent = run.state.agent(0);
  const agentId = agent.spec.id;
  // A function, not a comparison inline: the stop can come while a turn is awaited.
  const cancelled = (): boolean => run.stopReason === 'cancelled';
  for (;;) {
    if (cancelled()) throw new CancelledError();
    agent.turns++;
    const turn = agent.turns;
    run.emit({ type: 'agent.turn.started', agentId, turn, visibleAnswers: [] });
    run.emit({ type: 'presentation.started', agentId, mode: 'present' });
    const finished = turnFinisher(run, agent, turn);
    try {
      // The answer is final at once: scrubbed like any answer before it goes anywhere.
      const text = run.scrub(
        await run.withPresentationTimeout(
          (signal) =>
            runAnswerLoop(
              run,
              0,
              [
                {
                  role: 'system',
                  content: withWorkspaceNote(
                    run,
                    agentId,
                    'presentation',
                    directSystemPrompt(agent.spec.systemMessage),
                  ),
                },
                questionMessage(run, agentId, directUserMessage(run.question, run.history)),
              ],
              signal,
            ),
          0,
        ),
      );
      if (text === '') throw new Error('the model returned an empty answer');
      const { answer } = run.state.acceptAnswer(0, text);
      run.emit({
        type: 'answer.submitted',
        agentId,
        anonymousId: agent.anonymousId,
        label: answer.label,
        content: text,
      });
      agent.consecutiveFailures = 0;
      finished('answered');
      run.emit({
        type: 'coordination.finished',
        reason: 'single_agent',
        winnerId: agentId,
        winnerLabel: answer.label,
        tallies: {},
      });
      run.emit({
        type: 'presentation.finished',
        agentId,
        label: `${agent.anonymousId}.final`,
        content: text,
        fallback: false,
      });
      return {
        status: 'completed' as const,
        exitCode: ExitCode.success,
        winnerId: agentId,
        finalAnswer: text,
      };
    } catch (error) {
      if (cancelled()) {
        finished('aborted');
        throw new CancelledError();
      }
      const stop = run.stopReason;
      if (stop === 'timeout' || stop === 'budget') {
        finished('aborted');
        run.emit({
          type: 'coordination.finished',
          reason: stop,
          winnerId: null,
          winnerLabel: null,
          tallies: {},
        });
        return noAnswer(run.settings, run.maxTurns, stop, `${agentId} answered`);
      }
      recordFailure(run, run.failures, agent, error, finished);
      if (agent.dropped) {
        run.emit({
          type: 'coordination.finished',
          reason: 'all_agents_failed',
          winnerId: null,
          winnerLabel: null,
          tallies: {},
        });
        return (
          run.failures.unreachableOutcome(run.reachedProvider) ?? {
            status: 'failed' as const,
            exitCode: ExitCode.runFailed,
            winnerId: null,
            finalAnswer: null,
            error: { code: 'run_failed', message: `${agentId} failed: ${describeError(error)}` },
          }
        );
      }
    }
  }
}
