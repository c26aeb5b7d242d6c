import {
  BudgetExceededError,
  CancelledError,
  ExitCode,
  ProviderError,
  TimeoutError,
  describeError,
} from '../types/errors.js';
import type {
  CoordinationEndReason,
  ErrorInfo,
  RunEvent,
  RunEventInput,
  RunStatus,
  RunWarning,
  TurnOutcome,
} from '../types/events.js';
import { addUsage, costOf, emptyUsage, type TokenUsage } from '../types/usage.js';
import type { ToolApprover, ToolRegistry } from '../types/tool.js';
import type { WorkspaceHooks } from '../types/workspace.js';
import { linkedAbortController } from '../util/abort.js';
import { AsyncQueue } from '../util/async-queue.js';
import type { SecretScrubber } from '../util/secret-scrubber.js';
import { runCoordinationTurn } from './agent-turn.js';
import { ContextOverflowError } from './context-window.js';
import { EventScrubber } from './event-scrubbing.js';
import { CoordinationState, type AgentRuntime } from './coordination-state.js';
import { classifyTools, type PlanningPolicy } from './planning.js';
import { errorInfo, presentFinalAnswer, runAnswerLoop } from './presentation.js';
import { directSystemPrompt, directUserMessage } from './prompts.js';
import type { RunContext } from './run-context.js';
import { withWorkspaceNote } from './workspace-view.js';
import { assignPersonas, paraphraseQuestion } from './diversity.js';
import { checkFinalAnswer, judgeWinner } from './selection.js';
import { islandsOf, visibleSets } from './visibility.js';
import { replayStepRecord, runStepAction, stepRoster, stepWorkspaces, type StepRequest } from './step-action.js';
import {
  turnCeiling,
  type AgentSpec,
  type Clock,
  type CoordinationSettings,
  type HistoryTurn,
} from './settings.js';

/** Abort reason for a turn superseded under `on_new_answer: restart`. */
class RestartRequested extends Error {
  constructor() {
    super('restarted: a new answer arrived');
    this.name = 'RestartRequested';
  }
}

type StopReason = 'timeout' | 'budget' | 'turn_limit' | 'cancelled';

/** How a run ended, before it becomes `run.finished`. */
interface ConcludedRun {
  status: RunStatus;
  exitCode: number;
  winnerId: string | null;
  finalAnswer: string | null;
  error?: ErrorInfo;
}

/**
 * One run of the protocol: schedules turns, reacts to their outcomes, detects consensus, enforces
 * timeouts and the failure budget, then has the winner present. Emits every fact as a `RunEvent`.
 */
export class CoordinationRun implements RunContext {
  readonly events = new AsyncQueue<RunEvent>();
  state: CoordinationState;
  readonly restartNotes: { reason: string; instructions: string }[] = [];
  private startedAtMs = 0;
  private wrapUp = false;
  /** Set once coordination has its answer: turns still running are abandoned, not failed. */
  private concluding = false;
  private paraphrases: readonly (string | null)[] = [];
  private readonly personas: readonly (string | null)[];
  private readonly islands: readonly number[][] | null;
  private seq = 0;
  private readonly usage = new Map<string, TokenUsage>();
  private readonly cost = new Map<string, number>();
  private totalCost = 0;
  private readonly lastErrors = new Map<string, ErrorInfo>();
  /** Agents whose last failure was a provider they could not connect to at all. */
  private readonly unreachable = new Set<string>();
  /** Set by the first model step that finished: some provider was reached. */
  private reachedProvider = false;
  private readonly turnControllers = new Map<number, AbortController>();
  private readonly turnPromises = new Set<Promise<void>>();
  private readonly runAbort: AbortController;
  private readonly disposeRunAbort: () => void;
  private stopReason: StopReason | null = null;
  private turnsStarted = 0;
  private readonly maxTurns: number;
  private wakeUp: (() => void) | null = null;
  planning: PlanningPolicy | null = null;
  readonly approver: ToolApprover | undefined;
  readonly workspaces: WorkspaceHooks | undefined;
  private readonly warnings: readonly RunWarning[];
  private readonly scrubber: SecretScrubber | undefined;
  private readonly eventScrubber: EventScrubber | undefined;
  private readonly step: StepRequest | null;

  constructor(
    readonly runId: string,
    readonly question: string,
    readonly history: readonly HistoryTurn[],
    readonly settings: CoordinationSettings,
    readonly clock: Clock,
    agents: readonly AgentSpec[],
    private readonly externalSignal: AbortSignal | undefined,
    options: {
      approver?: ToolApprover;
      workspaces?: WorkspaceHooks;
      warnings?: readonly RunWarning[];
      scrubber?: SecretScrubber;
      /** Step mode: one agent's one action against a recorded session (see step-action.ts). */
      step?: StepRequest;
    } = {},
  ) {
    this.step = options.step ?? null;
    this.state = this.step
      ? replayStepRecord(stepRoster(agents, this.step), this.step.record)
      : new CoordinationState(
      agents,
      visibleSets(settings.visibility, agents.length, settings.visibilityK, clock.random),
    );
    this.islands = settings.visibility === 'islands' ? islandsOf(agents.length, settings.visibilityK) : null;
    this.personas =
      settings.personas === 'auto'
        ? assignPersonas(agents.map((a) => `${a.backend.type}/${a.backend.model}`))
        : agents.map(() => null);
    this.maxTurns = turnCeiling(settings, agents.length);
    this.warnings = options.warnings ?? [];
    this.scrubber = options.scrubber;
    this.eventScrubber = options.scrubber ? new EventScrubber(options.scrubber) : undefined;
    this.approver = options.approver;
    this.workspaces =
      this.step && options.workspaces ? stepWorkspaces(options.workspaces) : options.workspaces;
    const { controller, dispose } = linkedAbortController(externalSignal);
    this.runAbort = controller;
    this.disposeRunAbort = dispose;
    for (const a of agents) {
      this.usage.set(a.id, emptyUsage());
      this.cost.set(a.id, 0);
    }
  }

  emit(input: RunEventInput): void {
    if (input.type === 'agent.step.finished') this.reachedProvider = true;
    // Scrubbing may hold streamed text back (a secret split over deltas) or release it: 0, 1 or more events.
    for (const scrubbed of this.eventScrubber ? this.eventScrubber.scrub(input) : [input])
      this.events.push({ ...scrubbed, runId: this.runId, seq: this.seq++, ts: this.clock.now() } as RunEvent);
  }

  scrub(text: string): string {
    return this.scrubber ? this.scrubber.text(text) : text;
  }

  addUsage(agentId: string, usage: TokenUsage): number {
    this.usage.set(agentId, addUsage(this.usage.get(agentId) ?? emptyUsage(), usage));
    const price = this.state.agents.find((a) => a.spec.id === agentId)?.spec.price;
    const cost = costOf(usage, price);
    this.cost.set(agentId, (this.cost.get(agentId) ?? 0) + cost);
    this.totalCost += cost;
    const budget = this.settings.maxCostUsd;
    if (budget !== null && this.totalCost > budget) {
      this.stop(
        'budget',
        new BudgetExceededError(`cost budget of $${budget} exceeded ($${this.totalCost.toFixed(4)} spent)`),
      );
    }
    return cost;
  }

  answerAccepted(agentIndex: number): void {
    if (this.settings.onNewAnswer !== 'restart') return;
    for (const [index, controller] of this.turnControllers) {
      if (index === agentIndex || controller.signal.aborted) continue;
      this.emit({
        type: 'agent.turn.restarted',
        agentId: this.state.agent(index).spec.id,
        reason: 'new answer',
      });
      controller.abort(new RestartRequested());
    }
  }

  wrapUpRequested(): boolean {
    return this.wrapUp;
  }

  remainingMs(): number {
    return Math.max(0, this.startedAtMs + this.settings.orchestratorTimeoutMs - this.clock.now());
  }

  budgetNote(): string {
    const total = Math.round(this.settings.orchestratorTimeoutMs / 1000);
    const time = `TIME LEFT: about ${Math.round(this.remainingMs() / 1000)}s of the ${total}s allowed for coordination.`;
    const budget = this.settings.maxCostUsd;
    return budget === null
      ? time
      : `${time} BUDGET LEFT: $${Math.max(0, budget - this.totalCost).toFixed(4)} of $${budget}.`;
  }

  paraphraseFor(agentIndex: number): string | null {
    return this.paraphrases[agentIndex] ?? null;
  }

  personaFor(agentIndex: number): string | null {
    return this.personas[agentIndex] ?? null;
  }

  /** Stops the run from outside (Ctrl-C, a consumer that went away). */
  cancel(reason: unknown = new CancelledError()): void {
    this.stop('cancelled', reason);
  }

  /** Runs to completion. Never throws: every outcome ends in a `run.finished` event. */
  async execute(): Promise<void> {
    const startedAt = this.clock.now();
    this.startedAtMs = startedAt;
    this.emit({
      type: 'run.started',
      question: this.question,
      agents: this.state.agents.map((a) => ({
        agentId: a.spec.id,
        anonymousId: a.anonymousId,
        backendType: a.spec.backend.type,
        model: a.spec.backend.model,
        price: a.spec.price ?? null,
      })),
      settings: { ...this.settings },
    });
    for (const warning of this.warnings) this.emit({ type: 'run.warning', ...warning });
    if (this.settings.maxNewAnswersPerAgent === null && this.state.agents.length > 1) {
      this.emit({
        type: 'run.warning',
        code: 'unbounded_answers',
        message: `max_new_answers_per_agent is null: agents may answer without limit, so the run may not converge before its timeout (${this.settings.orchestratorTimeoutMs / 1000}s)`,
      });
    }
    const onExternalAbort = () => this.stop('cancelled', this.externalSignal?.reason);
    this.externalSignal?.addEventListener('abort', onExternalAbort, { once: true });
    if (this.externalSignal?.aborted) onExternalAbort();
    const timer = setTimeout(
      () =>
        this.stop(
          'timeout',
          new TimeoutError(`orchestrator timeout after ${this.settings.orchestratorTimeoutMs / 1000}s`),
        ),
      this.settings.orchestratorTimeoutMs,
    );
    const wrapUpAt = this.settings.wrapUpAt;
    const wrapUpTimer =
      wrapUpAt === null || this.state.agents.length < 2
        ? undefined
        : setTimeout(() => {
            this.wrapUp = true;
            this.emit({ type: 'coordination.wrap_up', remainingMs: this.remainingMs() });
          }, this.settings.orchestratorTimeoutMs * wrapUpAt);
    let outcome: {
      status: RunStatus;
      exitCode: number;
      winnerId: string | null;
      finalAnswer: string | null;
      error?: ErrorInfo;
    };
    try {
      await this.startTools();
      if (this.settings.planningMode && this.state.agents.length > 1) {
        this.planning = await classifyTools(this, this.runAbort.signal);
      }
      if (this.settings.paraphrase && this.state.agents.length > 1) {
        this.paraphrases = await paraphraseQuestion(this, this.runAbort.signal);
      }
      outcome = this.step
        ? await this.runStep(this.step)
        : this.state.agents.length === 1
          ? await this.runSingleAgent()
          : await this.runCoordination();
    } catch (error) {
      outcome =
        this.stopReason === 'cancelled' || error instanceof CancelledError
          ? {
              status: 'cancelled',
              exitCode: ExitCode.interrupted,
              winnerId: null,
              finalAnswer: null,
              error: errorInfo(new CancelledError()),
            }
          : {
              status: 'failed',
              exitCode: ExitCode.runFailed,
              winnerId: null,
              finalAnswer: null,
              error: errorInfo(error),
            };
    } finally {
      clearTimeout(timer);
      clearTimeout(wrapUpTimer);
      this.externalSignal?.removeEventListener('abort', onExternalAbort);
      const ended = new CancelledError('run finished');
      this.runAbort.abort(ended);
      for (const controller of this.turnControllers.values()) controller.abort(ended);
      await Promise.allSettled([...this.turnPromises]);
      // Servers and child processes end with the run, whatever its outcome.
      await Promise.allSettled(this.registries().map((registry) => registry.close?.()));
      this.disposeRunAbort();
    }
    this.emit({
      type: 'run.finished',
      ...outcome,
      durationMs: Math.max(0, this.clock.now() - startedAt),
      usage: Object.fromEntries(this.usage),
      costUsd: Object.fromEntries(this.cost),
    });
    this.events.close();
  }

  /** Each distinct registry once (library callers may share one between agents). */
  private registries(): ToolRegistry[] {
    return [...new Set(this.state.agents.flatMap((a) => (a.spec.tools ? [a.spec.tools] : [])))];
  }

  /** Connects every agent's tools in parallel before any turn starts. */
  private async startTools(): Promise<void> {
    const started = new Set<ToolRegistry>();
    await Promise.all(
      this.state.agents.map(async (agent) => {
        const registry = agent.spec.tools;
        if (!registry?.start || started.has(registry)) return;
        started.add(registry);
        await registry.start({
          agentId: agent.spec.id,
          signal: this.runAbort.signal,
          emit: (event) => this.emit(event),
        });
      }),
    );
    if (this.runAbort.signal.aborted) throw new CancelledError();
  }

  private stop(reason: StopReason, cause: unknown): void {
    if (this.stopReason) return;
    this.stopReason = reason;
    // The orchestrator timeout stops coordination only; the presentation gets its own turn timeout.
    for (const controller of this.turnControllers.values()) controller.abort(cause);
    if (reason === 'cancelled') this.runAbort.abort(cause instanceof Error ? cause : new CancelledError());
    this.wake();
  }

  private wake(): void {
    const wakeUp = this.wakeUp;
    this.wakeUp = null;
    wakeUp?.();
  }

  /** Attempts until one is accepted (one, unless `max_orchestration_restarts` sends the team back). */
  private async runCoordination() {
    for (;;) {
      const reason = await this.coordinateAttempt();
      const outcome = await this.conclude(reason);
      if (outcome !== 'restart') return outcome;
    }
  }

  /** Runs turns until coordination ends, and says why. */
  private async coordinateAttempt(): Promise<CoordinationEndReason> {
    this.concluding = false;
    let reason: CoordinationEndReason;
    for (;;) {
      if (this.stopReason) {
        reason = this.stopReason;
        break;
      }
      if (this.state.hasConsensus(this.settings.consensus)) {
        if (this.startFinalRound()) continue;
        reason = 'consensus';
        break;
      }
      const active = this.state.active();
      if (active.length === 0) {
        reason = 'all_agents_failed';
        break;
      }
      for (const agent of active) {
        if (agent.inFlight || agent.vote) continue;
        if (this.turnsStarted >= this.maxTurns) {
          this.stop('turn_limit', new Error(`turn ceiling of ${this.maxTurns} reached`));
          break;
        }
        this.turnsStarted++;
        this.startTurn(agent);
      }
      if (this.stopReason) continue;
      await new Promise<void>((resolve) => (this.wakeUp = resolve));
    }
    // With majority consensus the remaining turns are cancelled at once; their work is abandoned.
    this.concluding = true;
    for (const controller of this.turnControllers.values()) controller.abort(new RestartRequested());
    await Promise.allSettled([...this.turnPromises]);
    return reason;
  }

  /**
   * Islands: once every island has agreed, the island winners' answers go to a final round where
   * every agent votes among them only. Returns true when a final round started.
   */
  private startFinalRound(): boolean {
    if (!this.islands || this.state.finalists !== null) return false;
    const finalists = this.islands.flatMap((island) => {
      const winner = this.state.pickWinner(new Set(island));
      return winner === null ? [] : [winner];
    });
    if (finalists.length < 2) return false;
    for (const controller of this.turnControllers.values()) controller.abort(new RestartRequested());
    this.state.startFinalRound(new Set(finalists));
    this.emit({
      type: 'coordination.final_round',
      finalists: finalists.map((index) => ({
        agentId: this.state.agent(index).spec.id,
        label: this.state.latest(index)?.label ?? '',
      })),
    });
    return true;
  }

  private startTurn(agent: AgentRuntime): void {
    agent.inFlight = true;
    agent.turns++;
    const turn = agent.turns;
    // Not linked to the run's signal by a listener per turn (dozens of agents would pile listeners
    // on one signal): stop() and the end of the run abort every registered turn controller instead.
    const controller = new AbortController();
    if (this.runAbort.signal.aborted) controller.abort(this.runAbort.signal.reason);
    this.turnControllers.set(agent.index, controller);
    const limitMs = this.settings.agentTurnTimeoutMs;
    const timer =
      limitMs === null
        ? undefined
        : setTimeout(
            () => controller.abort(new TimeoutError(`turn timed out after ${limitMs / 1000}s`)),
            limitMs,
          );

    const finished = this.turnFinisher(agent, turn);

    const promise = runCoordinationTurn(this, agent.index, turn, controller.signal)
      .then(
        (outcome) => {
          agent.consecutiveFailures = 0;
          finished(outcome);
        },
        (error: unknown) => {
          const reason: unknown = controller.signal.aborted ? controller.signal.reason : error;
          // Work abandoned because of a restart or the end of coordination is not the agent's failure.
          if (reason instanceof RestartRequested || this.stopReason !== null || this.concluding) {
            finished('aborted');
            return;
          }
          this.recordFailure(agent, reason, finished);
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

  /** Emits `agent.turn.finished` for one turn, timed from now. */
  private turnFinisher(agent: AgentRuntime, turn: number) {
    const started = this.clock.now();
    return (outcome: TurnOutcome, error?: ErrorInfo) =>
      this.emit({
        type: 'agent.turn.finished',
        agentId: agent.spec.id,
        turn,
        outcome,
        durationMs: Math.max(0, this.clock.now() - started),
        consecutiveFailures: agent.consecutiveFailures,
        ...(error ? { error } : {}),
      });
  }

  private recordFailure(
    agent: AgentRuntime,
    error: unknown,
    finished: (outcome: 'failed', error: ErrorInfo) => void,
  ): void {
    agent.consecutiveFailures++;
    const info = errorInfo(error);
    this.lastErrors.set(agent.spec.id, info);
    if (error instanceof ProviderError && error.unreachable) this.unreachable.add(agent.spec.id);
    else this.unreachable.delete(agent.spec.id);
    finished('failed', info);
    // Even the opening request of a turn cannot fit the model's context window: no later turn would.
    const cannotFit = error instanceof ContextOverflowError && error.permanent;
    if (cannotFit || agent.consecutiveFailures >= this.settings.maxAgentFailures) {
      agent.dropped = true;
      this.emit({
        type: 'agent.dropped',
        agentId: agent.spec.id,
        reason: cannotFit
          ? info.message
          : `${agent.consecutiveFailures === 1 ? 'its turn failed' : `${agent.consecutiveFailures} consecutive failed turns`}; last: ${info.message}`,
      });
    }
  }

  private allFailedError(): ErrorInfo {
    const details = [...this.lastErrors].map(([id, e]) => `${id}: ${e.message}`).join('; ');
    return { code: 'run_failed', message: `All agents failed — ${details}` };
  }

  /**
   * When every agent failed without ever reaching its provider (refused, host not found, no route), the
   * run could not start: the network or a base_url is the problem, not the run. One line naming each
   * provider and host once (agents sharing one are listed together), and how to try massgen offline.
   */
  private unreachableOutcome(): ConcludedRun | null {
    const failed = [...this.lastErrors.keys()];
    if (this.reachedProvider || failed.length === 0 || !failed.every((id) => this.unreachable.has(id)))
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
        message: `the run could not start: no agent could reach its provider (${details}) — check the network connection and base_url; to try massgen offline, run \`npm run demo\` in its repository`,
      },
    };
  }

  /** Picks the winner, reports it, and has it present. */
  private async conclude(reason: CoordinationEndReason): Promise<ConcludedRun | 'restart'> {
    const failed = {
      status: 'failed' as const,
      exitCode: ExitCode.runFailed,
      winnerId: null,
      finalAnswer: null,
    };
    const tallies = Object.fromEntries(
      [...this.state.tallies()].map(([index, votes]) => [this.state.agent(index).spec.id, votes]),
    );
    let winnerIndex =
      reason === 'all_agents_failed' || reason === 'cancelled'
        ? null
        : this.state.pickWinner(this.state.finalists ?? undefined);
    if (winnerIndex !== null && this.settings.selection === 'judge' && this.stopReason !== 'cancelled') {
      winnerIndex =
        (await this.withPresentationTimeout((signal) => judgeWinner(this, signal))) ?? winnerIndex;
    }
    const winner = winnerIndex === null ? null : this.state.agent(winnerIndex);
    this.emit({
      type: 'coordination.finished',
      reason,
      winnerId: winner?.spec.id ?? null,
      winnerLabel: winnerIndex === null ? null : (this.state.latest(winnerIndex)?.label ?? null),
      tallies,
    });
    if (reason === 'cancelled') throw new CancelledError();
    if (reason === 'all_agents_failed')
      return this.unreachableOutcome() ?? { ...failed, error: this.allFailedError() };
    if (winnerIndex === null || !winner)
      return this.noAnswer(
        reason === 'budget' ? 'budget' : reason === 'turn_limit' ? 'turn_limit' : 'timeout',
        'any agent submitted an answer',
      );
    const presenter = winnerIndex;
    const finalAnswer = await this.withPresentationTimeout((signal) =>
      presentFinalAnswer(this, presenter, signal, () => this.stopReason === 'cancelled'),
    );
    if (await this.sentBack(presenter, finalAnswer)) return 'restart';
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
  private async sentBack(winnerIndex: number, finalAnswer: string): Promise<boolean> {
    const max = this.settings.maxOrchestrationRestarts;
    if (this.restartNotes.length >= max || this.stopReason !== null) return false;
    const verdict = await this.withPresentationTimeout((signal) =>
      checkFinalAnswer(this, winnerIndex, finalAnswer, max - this.restartNotes.length, signal),
    );
    if (verdict.accepted || this.stopReason !== null) return false;
    // The winner's words go into every agent's prompt in the next attempt.
    this.restartNotes.push({
      reason: this.scrub(verdict.reason),
      instructions: this.scrub(verdict.instructions),
    });
    this.state.resetForRestart();
    this.emit({
      type: 'orchestration.restarted',
      attempt: this.restartNotes.length + 1,
      reason: verdict.reason,
      instructions: verdict.instructions,
    });
    return true;
  }

  /**
   * Runs presentation-phase work under the turn timeout. With `agentIndex`, the work is registered
   * as that agent's turn so the orchestrator timeout can stop it (the single-agent shortcut).
   */
  private async withPresentationTimeout<T>(
    work: (signal: AbortSignal) => Promise<T>,
    agentIndex?: number,
  ): Promise<T> {
    const { controller, dispose } = linkedAbortController(this.runAbort.signal);
    if (agentIndex !== undefined) this.turnControllers.set(agentIndex, controller);
    const limitMs = this.settings.agentTurnTimeoutMs;
    const timer =
      limitMs === null
        ? undefined
        : setTimeout(
            () => controller.abort(new TimeoutError(`presentation timed out after ${limitMs / 1000}s`)),
            limitMs,
          );
    try {
      return await work(controller.signal);
    } finally {
      clearTimeout(timer);
      dispose();
      if (agentIndex !== undefined) this.turnControllers.delete(agentIndex);
    }
  }

  /** The outcome when coordination stopped (timeout or budget) before `what`. */
  private noAnswer(reason: 'timeout' | 'budget' | 'turn_limit', what: string) {
    const errors = {
      budget: {
        code: 'budget_exceeded',
        message: `The cost budget of $${this.settings.maxCostUsd} was spent before ${what}.`,
      },
      turn_limit: {
        code: 'run_failed',
        message: `The run reached its ceiling of ${this.maxTurns} turns (orchestrator.max_total_turns) before ${what}.`,
      },
      timeout: { code: 'timeout', message: `The orchestrator timed out before ${what}.` },
    };
    const timedOut = reason === 'timeout';
    return {
      status: timedOut ? ('timeout' as const) : ('failed' as const),
      exitCode: timedOut ? ExitCode.timedOutWithoutAnswer : ExitCode.runFailed,
      winnerId: null,
      finalAnswer: null,
      error: errors[reason],
    };
  }

  /**
   * Step mode: the acting agent's one action, under the turn timeout and the orchestrator timeout. The
   * action itself travels as its event (`answer.submitted`, `vote.cast`, `presentation.finished`).
   */
  private async runStep(step: StepRequest): Promise<ConcludedRun> {
    const index = this.state.agents.findIndex((a) => a.spec.id === step.agentId);
    const agent = this.state.agent(index);
    const finished = this.turnFinisher(agent, agent.turns + 1);
    try {
      const done = await this.withPresentationTimeout(
        (signal) => runStepAction(this, index, step, signal, () => this.stoppedBy('cancelled')),
        index,
      );
      if (done.kind === 'present')
        return { status: 'completed', exitCode: ExitCode.success, winnerId: agent.spec.id, finalAnswer: done.finalAnswer };
      finished(done.outcome);
      return { status: 'completed', exitCode: ExitCode.success, winnerId: null, finalAnswer: null };
    } catch (error) {
      if (this.stoppedBy('cancelled')) {
        finished('aborted');
        throw new CancelledError();
      }
      const stop = this.stopReason;
      if (stop === 'timeout' || stop === 'budget') {
        finished('aborted');
        return this.noAnswer(stop, `${agent.spec.id} acted`);
      }
      const info = errorInfo(error);
      finished('failed', info);
      return { status: 'failed', exitCode: ExitCode.runFailed, winnerId: null, finalAnswer: null, error: info };
    }
  }

  private stoppedBy(reason: StopReason): boolean {
    return this.stopReason === reason;
  }

  /** A single configured agent answers once, directly, and that answer is final. */
  private async runSingleAgent() {
    const agent = this.state.agent(0);
    const agentId = agent.spec.id;
    for (;;) {
      if (this.stopReason === 'cancelled') throw new CancelledError();
      agent.turns++;
      const turn = agent.turns;
      this.emit({ type: 'agent.turn.started', agentId, turn, visibleAnswers: [] });
      this.emit({ type: 'presentation.started', agentId, mode: 'present' });
      const finished = this.turnFinisher(agent, turn);
      try {
        // The answer is final at once: scrubbed like any answer before it goes anywhere.
        const text = this.scrub(
          await this.withPresentationTimeout(
            (signal) =>
              runAnswerLoop(
                this,
                0,
                [
                  {
                    role: 'system',
                    content: withWorkspaceNote(
                      this,
                      agentId,
                      'presentation',
                      directSystemPrompt(agent.spec.systemMessage),
                    ),
                  },
                  { role: 'user', content: directUserMessage(this.question, this.history) },
                ],
                signal,
              ),
            0,
          ),
        );
        if (text === '') throw new Error('the model returned an empty answer');
        const { answer } = this.state.acceptAnswer(0, text);
        this.emit({
          type: 'answer.submitted',
          agentId,
          anonymousId: agent.anonymousId,
          label: answer.label,
          content: text,
        });
        agent.consecutiveFailures = 0;
        finished('answered');
        this.emit({
          type: 'coordination.finished',
          reason: 'single_agent',
          winnerId: agentId,
          winnerLabel: answer.label,
          tallies: {},
        });
        this.emit({
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
        if (this.stoppedBy('cancelled')) {
          finished('aborted');
          throw new CancelledError();
        }
        const stop = this.stopReason;
        if (stop === 'timeout' || stop === 'budget') {
          finished('aborted');
          this.emit({
            type: 'coordination.finished',
            reason: stop,
            winnerId: null,
            winnerLabel: null,
            tallies: {},
          });
          return this.noAnswer(stop, `${agentId} answered`);
        }
        this.recordFailure(agent, error, finished);
        if (agent.dropped) {
          this.emit({
            type: 'coordination.finished',
            reason: 'all_agents_failed',
            winnerId: null,
            winnerLabel: null,
            tallies: {},
          });
          return (
            this.unreachableOutcome() ?? {
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
}
