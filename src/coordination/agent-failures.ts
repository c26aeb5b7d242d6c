import { ExitCode, ProviderError } from '../types/errors.js';
import type { ErrorInfo, TurnOutcome } from '../types/events.js';
import { ContextOverflowError } from './context-window.js';
import type { AgentRuntime } from './coordination-state.js';
import { errorInfo } from './presentation.js';
import type { RunContext } from './run-context.js';
import type { ConcludedRun } from './run-outcome.js';

/** Emits `agent.turn.finished` for one turn, timed from now. */
export function turnFinisher(ctx: RunContext, agent: AgentRuntime, turn: number) {
  const started = ctx.clock.now();
  return (outcome: TurnOutcome, error?: ErrorInfo) =>
    ctx.emit({
      type: 'agent.turn.finished',
      agentId: agent.spec.id,
      turn,
      outcome,
      durationMs: Math.max(0, ctx.clock.now() - started),
      consecutiveFailures: agent.consecutiveFailures,
      ...(error ? { error } : {}),
    });
}

/**
 * Each agent's last failure, kept so a run where every agent failed can say why — and whether the
 * cause was the network (no agent could reach its provider) rather than the run.
 */
export class FailureLog {
  private readonly lastErrors = new Map<string, ErrorInfo>();
  /** Agents whose last failure was a provider they could not connect to at all. */
  private readonly unreachable = new Set<string>();
  /** Agents whose provider answered at some point (a status, a response cut short). */
  private readonly responded = new Set<string>();

  /** Remembers the failure as the agent's last; returns it as it is reported. */
  record(agentId: string, error: unknown): ErrorInfo {
    const info = errorInfo(error);
    this.lastErrors.set(agentId, info);
    if (error instanceof ProviderError && error.unreachable) this.unreachable.add(agentId);
    else this.unreachable.delete(agentId);
    if (error instanceof ProviderError && error.responded) this.responded.add(agentId);
    return info;
  }

  allFailedError(): ErrorInfo {
    const details = [...this.lastErrors].map(([id, e]) => `${id}: ${e.message}`).join('; ');
    return { code: 'run_failed', message: `All agents failed — ${details}` };
  }

  /**
   * When every agent failed without ever reaching its provider (refused, host not found, no route), the
   * run could not start: the network or a base_url is the problem, not the run. One line naming each
   * provider and host once (agents sharing one are listed together), and how to try massgen offline.
   */
  unreachableOutcome(reachedProvider: boolean): ConcludedRun | null {
    const failed = [...this.lastErrors.keys()];
    if (
      reachedProvider ||
      failed.length === 0 ||
      this.responded.size > 0 ||
      !failed.every((id) => this.unreachable.has(id))
    )
      return null;
    const byMessage = new Map<string, string[]>();
    for (const [id, error] of this.lastErrors)
      byMessage.set(error.message, [...(byMessage.get(error.message) ?? []), id]);
    const details = [...byMessage].map(([message, ids]) => `${ids.join(', ')}: ${message}`).join('; ');
    return {
      status: 'failed',
      exitCode: ExitCode.config,
      winnerId: null,
      finalAnswer: null,
      error: {
        code: 'provider_unreachable',
        message: `the run could not start: no agent could reach its provider (${details}) — check the network connection and base_url; to try massgen offline, run \`massgen demo\``,
      },
    };
  }
}

/** Counts a failed turn against the agent, reports it, and drops the agent once it cannot go on. */
export function recordFailure(
  ctx: RunContext,
  failures: FailureLog,
  agent: AgentRuntime,
  error: unknown,
  finished: (outcome: 'failed', error: ErrorInfo) => void,
): void {
  agent.consecutiveFailures++;
  const info = failures.record(agent.spec.id, error);
  finished('failed', info);
  // Even the opening request of a turn cannot fit the model's context window: no later turn would.
  const cannotFit = error instanceof ContextOverflowError && error.permanent;
  if (cannotFit || agent.consecutiveFailures >= ctx.settings.maxAgentFailures) {
    agent.dropped = true;
    ctx.emit({
      type: 'agent.dropped',
      agentId: agent.spec.id,
      reason: cannotFit
        ? info.message
        : `${agent.consecutiveFailures === 1 ? 'its turn failed' : `${agent.consecutiveFailures} consecutive failed turns`}; last: ${info.message}`,
    });
  }
}
