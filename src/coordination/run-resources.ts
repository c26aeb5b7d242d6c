import { CancelledError, describeError } from '../types/errors.js';
import type { ToolRegistry } from '../types/tool.js';
import type { CoordinationState } from './coordination-state.js';
import type { RunContext } from './run-context.js';
import type { ConcludedRun } from './run-outcome.js';

/** Each distinct registry once (library callers may share one between agents). */
function registries(state: CoordinationState): ToolRegistry[] {
  return [...new Set(state.agents.flatMap((a) => (a.spec.tools ? [a.spec.tools] : [])))];
}

/** Connects every agent's tools in parallel before any turn starts. */
export async function startTools(ctx: RunContext, signal: AbortSignal): Promise<void> {
  const started = new Set<ToolRegistry>();
  await Promise.all(
    ctx.state.agents.map(async (agent) => {
      const registry = agent.spec.tools;
      if (!registry?.start || started.has(registry)) return;
      started.add(registry);
      await registry.start({
        agentId: agent.spec.id,
        signal,
        emit: (event) => ctx.emit(event),
        addCost: (dollars) => ctx.addToolCost(agent.spec.id, dollars),
      });
    }),
  );
  if (signal.aborted) throw new CancelledError();
}

/** Servers and child processes end with the run, whatever its outcome. */
export async function closeTools(state: CoordinationState): Promise<void> {
  await Promise.allSettled(registries(state).map((registry) => registry.close?.()));
}

/** True when the winner's workspace changes should be brought back (see {@link concludeWorkspaces}). */
export function hasWorkspacesToConclude(ctx: RunContext, outcome: ConcludedRun): boolean {
  return (
    !!ctx.workspaces?.conclude &&
    outcome.winnerId !== null &&
    outcome.status !== 'cancelled' &&
    outcome.status !== 'failed'
  );
}

/**
 * The winner's changes to isolated context paths go back to the user (proposed, reviewed, applied)
 * before `run.finished`. A failure there is said as a warning: the answer stands. `signal` ends a
 * wait for a person's review.
 */
export async function concludeWorkspaces(
  ctx: RunContext,
  outcome: ConcludedRun,
  signal: AbortSignal,
): Promise<void> {
  const workspaces = ctx.workspaces;
  const conclude = workspaces?.conclude;
  if (!conclude || outcome.winnerId === null) return;
  try {
    await conclude.call(workspaces, {
      winnerId: outcome.winnerId,
      emit: (event) => ctx.emit(event),
      signal,
    });
  } catch (error) {
    ctx.emit({
      type: 'run.warning',
      code: 'changes_not_applied',
      message: `the winner's changes could not be brought back: ${describeError(error)}`,
    });
  }
}
