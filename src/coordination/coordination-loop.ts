import { TimeoutError } from '../types/errors.js';
import { linkedAbortController } from '../util/abort.js';
import type { CoordinationEndReason } from '../types/events.js';
import { recordFailure, turnFinisher } from './agent-failures.js';
import { runCoordinationTurn } from './agent-turn.js';
import { conclude } from './conclusion.js';
import type { AgentRuntime } from './coordination-state.js';
import type { RunControl } from './run-control.js';
import type { ConcludedRun, StopReason } from './run-outcome.js';

/** The per-turn timeout: aborts `controller` after `limitMs` (null: no limit). */
function abortAfter(controller: AbortController, limitMs: number | null, what: 'turn' | 'presentation') {
  return limitMs === null
    ? undefined
    : setTimeout(
        () => controller.abort(new TimeoutError(`${what} timed out after ${limitMs / 1000}s`)),
        limitMs,
      );
}

/** Abort reason for a turn superseded under `on_new_answer: restart`. */
class RestartRequested extends Error {
  constructor() {
    super('restarted: a new answer arrived');
    this.name = 'RestartRequested';
  }
}

/** What the loop needs of its run beyond {@link RunControl}: the means to stop it. */
export interface LoopHost extends RunControl {
  stop(reason: StopReason, cause: unknown): void;
}

/**
 * The coordination loop: schedules every agent's turns in parallel, wakes on each turn's end (or a
 * stop, or a user's message), detects consensus and islands' final rounds, and concludes. It owns
 * the turns in flight, so the run can abort them all at a stop or at its end.
 */
export class CoordinationLoop {
  private readonly turnControllers = new Map<number, AbortController>();
  private readonly turnPromises = new Set<Promise<void>>();
  private wakeUp: (() => void) | null = null;
  private turnsStarted = 0;
  /** Set once coordination has its answer: turns still running are abandoned, not failed. */
  private concluding = false;

  constructor(
    private readonly run: LoopHost,
    private readonly runSignal: AbortSignal,
    private readonly islands: readonly number[][] | null,
  ) {}

  /** True once coordination has its answer and is concluding. */
  get isConcluding(): boolean {
    return this.concluding;
  }

  /**
   * Runs presentation-phase work under the turn timeout. With `agentIndex`, the work is registered
   * as that agent's turn so the orchestrator timeout can stop it (the single-agent shortcut).
   */
  async withPresentationTimeout<T>(
    work: (signal: AbortSignal) => Promise<T>,
    agentIndex?: number,
  ): Promise<T> {
    const { controller, dispose } = linkedAbortController(this.runSignal);
    if (agentIndex !== undefined) this.turnControllers.set(agentIndex, controller);
    const timer = abortAfter(controller, this.run.settings.agentTurnTimeoutMs, 'presentation');
    try {
      return await work(controller.signal);
    } finally {
      clearTimeout(timer);
      dispose();
      if (agentIndex !== undefined) this.turnControllers.delete(agentIndex);
    }
  }

  /** Aborts every turn in flight. */
  abortAll(reason: unknown): void {
    for (const controller of this.turnControllers.values()) controller.abort(reason);
  }

  /** Waits until every turn started has ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.turnPromises]);
  }

  /** Lets the loop look again (a turn ended, the run stopped, a user wrote). */
  wake(): void {
    const wakeUp = this.wakeUp;
    this.wakeUp = null;
    wakeUp?.();
  }

  /** `on_new_answer: restart`: every other turn in flight starts over with the new answer in view. */
  restartOthers(agentIndex: number): void {
    for (const [index, controller] of this.turnControllers) {
      if (index === agentIndex || controller.signal.aborted) continue;
      this.run.emit({
        type: 'agent.turn.restarted',
        agentId: this.run.state.agent(index).spec.id,
        reason: 'new answer',
      });
      controller.abort(new RestartRequested());
    }
  }

  /** Attempts until one is accepted (one, unless `max_orchestration_restarts` sends the team back). */
  async runCoordination(): Promise<ConcludedRun> {
    for (;;) {
      const reason = await this.coordinateAttempt();
      const outcome = await conclude(this.run, reason);
      if (outcome !== 'restart') return outcome;
    }
  }

  /** Runs turns until coordination ends, and says why. */
  private async coordinateAttempt(): Promise<CoordinationEndReason> {
    const run = this.run;
    this.concluding = false;
    let reason: CoordinationEndReason;
    for (;;) {
      if (run.stopReason) {
        reason = run.stopReason;
        break;
      }
      if (run.state.hasConsensus(run.settings.consensus)) {
        if (this.startFinalRound()) continue;
        reason = 'consensus';
        break;
      }
      if (run.state.agents.every((a) => a.dropped)) {
        reason = 'all_agents_failed';
        break;
      }
      for (const agent of run.state.agents) {
        if (agent.dropped || agent.inFlight || agent.vote) continue;
        if (this.turnsStarted >= run.maxTurns) {
          run.stop('turn_limit', new Error(`turn ceiling of ${run.maxTurns} reached`));
          break;
        }
        this.turnsStarted++;
        this.startTurn(agent);
      }
      if (run.stopReason) continue;
      await new Promise<void>((resolve) => (this.wakeUp = resolve));
    }
    // With majority consensus the remaining turns are cancelled at once; their work is abandoned.
    this.concluding = true;
    this.abortAll(new RestartRequested());
    await this.settled();
    return reason;
  }

  /**
   * Islands: once every island has agreed, the island winners' answers go to a final round where
   * every agent votes among them only. Returns true when a final round started.
   */
  private startFinalRound(): boolean {
    const state = this.run.state;
    if (!this.islands || state.finalists !== null) return false;
    const finalists = this.islands.flatMap((island) => {
      const winner = state.pickWinner(new Set(island));
      return winner === null ? [] : [winner];
    });
    if (finalists.length < 2) return false;
    this.abortAll(new RestartRequested());
    state.startFinalRound(new Set(finalists));
    this.run.emit({
      type: 'coordination.final_round',
      finalists: finalists.map((index) => ({
        agentId: state.agent(index).spec.id,
        label: state.latest(index)?.label ?? '',
      })),
    });
    return true;
  }

  private startTurn(agent: AgentRuntime): void {
    const run = this.run;
    agent.inFlight = true;
    agent.turns++;
    const turn = agent.turns;
    // Not linked to the run's signal by a listener per turn (dozens of agents would pile listeners
    // on one signal): stop() and the end of the run abort every registered turn controller instead.
    const controller = new AbortController();
    if (this.runSignal.aborted) controller.abort(this.runSignal.reason);
    this.turnControllers.set(agent.index, controller);
    const timer = abortAfter(controller, run.settings.agentTurnTimeoutMs, 'turn');

    const finished = turnFinisher(run, agent, turn);

    const promise = runCoordinationTurn(run, agent.index, turn, controller.signal)
      .then(
        (outcome) => {
          agent.consecutiveFailures = 0;
          finished(outcome);
        },
        (error: unknown) => {
          const reason: unknown = controller.signal.aborted ? controller.signal.reason : error;
          // Work abandoned because of a restart or the end of coordination is not the agent's failure.
          if (reason instanceof RestartRequested || run.stopReason !== null || this.concluding) {
            finished('aborted');
            return;
          }
          recordFailure(run, run.failures, agent, reason, finished);
        },
      )
      .finally(() => {
        clearTimeout(timer);
        agent.inFlight = false;
        this.turnControllers.delete(agent.index);
        this.turnPromises.delete(promise);
        this.wake();
      });
    this.turnPromises.add(promise);
  }
}
