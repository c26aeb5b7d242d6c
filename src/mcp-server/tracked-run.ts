import type { ErrorInfo, RunEvent } from '../types/events.js';
import type { RunResult } from '../types/run-result.js';
import { initialRunState, reduceRunState, type RunState } from '../types/run-state.js';

/** Where a run is: waiting for a slot, preparing (config, backends, downloads), or the engine's phase. */
export type TrackedPhase = 'queued' | 'starting' | 'coordinating' | 'presenting' | 'finished';

/** A moment worth telling a waiting client about (`notifications/progress`). */
export interface Milestone {
  /** Increases with every milestone of the run: the progress value. */
  count: number;
  message: string;
}

/** One line for a milestone event, or null for the events in between (text, steps, tool calls). */
function milestoneOf(event: RunEvent, state: RunState): string | null {
  switch (event.type) {
    case 'run.started':
      return `started: ${event.agents.map((a) => a.agentId).join(', ')}`;
    case 'agent.turn.started':
      return `${event.agentId} started turn ${event.turn}`;
    case 'answer.submitted':
      return `${event.agentId} answered (${event.label})`;
    case 'vote.cast':
      return event.counted ? `${event.agentId} voted for ${event.targetLabel}` : null;
    case 'votes.reset':
      return `votes reset by ${event.causedBy}`;
    case 'agent.dropped':
      return `${event.agentId} dropped: ${event.reason}`;
    case 'coordination.finished':
      return `coordination ended (${event.reason})${event.winnerId ? `: ${event.winnerId} wins` : ''}`;
    case 'presentation.started':
      return `${event.agentId} presents the final answer`;
    case 'orchestration.restarted':
      return `attempt ${event.attempt}: ${event.reason}`;
    case 'run.finished':
      return `finished: ${event.status}${state.winnerId ? ` (winner ${state.winnerId})` : ''}`;
    default:
      return null;
  }
}

/**
 * One run the MCP server started: its live state (the shared `reduceRunState` projection of its
 * events), its result once over, and a way to wait for its next milestone. Owned by the process,
 * not by the client that started it, so it outlives that client's connection.
 */
export class TrackedRun {
  phase: TrackedPhase = 'queued';
  state: RunState = initialRunState();
  logDir: string | null = null;
  result: RunResult | null = null;
  /** Why it could not start (a config problem found late, a cancel while queued). */
  startError: ErrorInfo | null = null;
  /** Context paths the final presenter may write (absolute): where deliverables may appear. */
  writablePaths: string[] = [];
  readonly controller = new AbortController();
  private milestones = 0;
  private lastMessage = 'queued';
  private readonly listeners = new Set<(milestone: Milestone) => void>();
  private markDone!: () => void;
  /** Resolves once the run is over (finished, failed, cancelled or never started). */
  readonly done = new Promise<void>((resolve) => (this.markDone = resolve));

  constructor(
    readonly id: string,
    readonly question: string,
    readonly configFile: string,
    readonly createdAt: number,
  ) {}

  get finished(): boolean {
    return this.phase === 'finished';
  }

  get milestone(): Milestone {
    return { count: this.milestones, message: this.lastMessage };
  }

  /** Calls `listener` on each milestone until the returned function is called. */
  subscribe(listener: (milestone: Milestone) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private announce(message: string): void {
    this.milestones++;
    this.lastMessage = message;
    for (const listener of [...this.listeners]) listener(this.milestone);
  }

  /** The run has a slot and is being prepared. */
  starting(): void {
    this.phase = 'starting';
    this.announce('starting');
  }

  /** Applies one of the run's events. */
  apply(event: RunEvent): void {
    this.state = reduceRunState(this.state, event);
    if (
      event.type !== 'run.finished' &&
      (this.state.phase === 'coordinating' || this.state.phase === 'presenting')
    )
      this.phase = this.state.phase;
    const message = milestoneOf(event, this.state);
    if (message) this.announce(message);
  }

  /** The run is over: with its result, or with the reason it never ran. */
  finish(result: RunResult | null, error?: ErrorInfo): void {
    if (this.phase === 'finished') return;
    this.result = result;
    if (result?.logDir) this.logDir = result.logDir;
    if (error) this.startError = error;
    this.phase = 'finished';
    if (!result) this.announce(`finished: ${error?.code === 'cancelled' ? 'cancelled' : 'failed'}`);
    this.markDone();
  }
}
