import { BudgetExceededError, CancelledError, TimeoutError } from '../types/errors.js';
import type { RunEvent, RunEventInput, RunWarning } from '../types/events.js';
import type { TokenUsage } from '../types/usage.js';
import type {
  AnswerNowResult,
  SteeringMessage,
  SteeringSource,
  SteerResult,
} from '../types/steering-events.js';
import type { ToolApprover, ToolHooks, ToolPolicy } from '../types/tool.js';
import type { WorkspaceHooks } from '../types/workspace.js';
import { linkedAbortController } from '../util/abort.js';
import { AsyncQueue } from '../util/async-queue.js';
import type { SecretScrubber } from '../util/secret-scrubber.js';
import { FailureLog } from './agent-failures.js';
import { CoordinationLoop, type LoopHost } from './coordination-loop.js';
import { reachesProvider, type CoordinationRunOptions } from './coordination-run-options.js';
import { EventScrubber } from './event-scrubbing.js';
import { CoordinationState } from './coordination-state.js';
import type { PlanningPolicy } from './planning-policy.js';
import { closeTools, concludeWorkspaces, hasWorkspacesToConclude } from './run-resources.js';
import { thrownOutcome, type ConcludedRun, type StopReason } from './run-outcome.js';
import { coordinates, setUpRun } from './run-setup.js';
import { runSingleAgent } from './single-agent.js';
import { AnswerNowRequested, checkAnswerNow, checkSteering } from './steering.js';
import { StopGate, type StopGateHost } from './stop-gate.js';
import { HumanInbox } from './human-inbox.js';
import { runStep } from './step-turn.js';
import { assignPersonas } from './diversity.js';
import { UsageMeter } from './usage-meter.js';
import { mediaForModel, type MediaForAgent } from './media-filter.js';
import { mediaRef, type MediaPart } from '../types/media.js';
import { islandsOf, visibleSets } from './visibility.js';
import type { DecompositionPlan } from './quality/decomposition-plan.js';
import type { QualityBook } from './quality/quality-book.js';
import type { TurnPolicyPicker } from './run-context.js';
import { replayStepRecord, stepRoster, stepWorkspaces, type StepRequest } from './step-action.js';
import { turnCeiling, type Clock, type CoordinationSettings, type HistoryTurn } from './settings.js';

export type { CoordinationRunOptions } from './coordination-run-options.js';

/**
 * One run of the protocol: owns its state, emits every fact as a `RunEvent`, enforces timeouts, the
 * budget and cancellation, and hands the work to its phases — the coordination loop
 * (coordination-loop.ts, which concludes through conclusion.ts), the single-agent shortcut
 * (single-agent.ts) or step mode (step-turn.ts) — asks the user's Stop hooks whether it may end
 * (stop-gate.ts), then finishes the run.
 */
export class CoordinationRun implements LoopHost, StopGateHost {
  readonly events = new AsyncQueue<RunEvent>();
  state: CoordinationState;
  readonly restartNotes: { reason: string; instructions: string }[] = [];
  /** The user's steering messages, and who has read them. */
  readonly inbox = new HumanInbox();
  readonly failures = new FailureLog();
  readonly maxTurns: number;
  private startedAtMs = 0;
  private wrapUp = false;
  private paraphrases: readonly (string | null)[] = [];
  private readonly personas: readonly (string | null)[];
  private seq = 0;
  private readonly meter: UsageMeter;
  private reached = false;
  private readonly loop: CoordinationLoop;
  private readonly runAbort: AbortController;
  private readonly disposeRunAbort: () => void;
  private stopped: StopReason | null = null;
  planning: PlanningPolicy | null = null;
  quality: QualityBook | null = null;
  decomposition: DecompositionPlan | null = null;
  turnPolicy: TurnPolicyPicker | undefined = undefined;
  readonly approver: ToolApprover | undefined;
  readonly toolPolicy: ToolPolicy | undefined;
  readonly toolHooks: ToolHooks | undefined;
  readonly workspaces: WorkspaceHooks | undefined;
  private readonly warnings: readonly RunWarning[];
  private readonly scrubber: SecretScrubber | undefined;
  private readonly eventScrubber: EventScrubber | undefined;
  private readonly step: StepRequest | null;
  private readonly stopGate: StopGate | null;
  /** Set while the workspaces conclude (a review may wait for a person): aborted by `cancel`. */
  private concludeAbort: AbortController | null = null;
  private cancelRequested = false;
  readonly attachments: readonly MediaPart[];

  readonly runId: string;
  readonly question: string;
  readonly history: readonly HistoryTurn[];
  readonly settings: CoordinationSettings;
  readonly clock: Clock;
  private readonly externalSignal: AbortSignal | undefined;

  constructor(options: CoordinationRunOptions) {
    const { settings, clock, agents } = options;
    this.runId = options.runId;
    this.question = options.question;
    this.history = options.history;
    this.settings = settings;
    this.clock = clock;
    this.externalSignal = options.signal;
    this.step = options.step ?? null;
    this.attachments = options.attachments ?? [];
    this.state = this.step
      ? replayStepRecord(stepRoster(agents, this.step), this.step.record)
      : new CoordinationState(
          agents,
          // Decomposition: every agent reads every part (the parts must fit together).
          visibleSets(
            settings.coordinationMode === 'decomposition' ? 'all' : settings.visibility,
            agents.length,
            settings.visibilityK,
            clock.random,
          ),
        );
    this.personas =
      settings.personas === 'auto' && !options.step
        ? assignPersonas(agents.map((a) => `${a.backend.type}/${a.backend.model}`))
        : agents.map(() => null);
    this.maxTurns = turnCeiling(settings, agents.length);
    this.warnings = options.warnings ?? [];
    this.scrubber = options.scrubber;
    this.eventScrubber = options.scrubber ? new EventScrubber(options.scrubber) : undefined;
    this.approver = options.approver;
    this.toolPolicy = options.toolPolicy;
    this.toolHooks = options.toolHooks;
    this.stopGate = options.stopHook ? new StopGate(options.stopHook, this, !this.step) : null;
    this.workspaces =
      this.step && options.workspaces ? stepWorkspaces(options.workspaces) : options.workspaces;
    const { controller, dispose } = linkedAbortController(options.signal);
    this.runAbort = controller;
    this.disposeRunAbort = dispose;
    this.meter = new UsageMeter(agents.map((a) => a.id));
    this.loop = new CoordinationLoop(
      this,
      controller.signal,
      settings.visibility === 'islands' ? islandsOf(agents.length, settings.visibilityK) : null,
    );
  }

  get stopReason(): StopReason | null {
    return this.stopped;
  }

  get reachedProvider(): boolean {
    return this.reached;
  }

  emit(input: RunEventInput): void {
    if (reachesProvider(input)) this.reached = true;
    // Scrubbing may hold streamed text back (a secret split over deltas) or release it: 0, 1 or more events.
    for (const scrubbed of this.eventScrubber ? this.eventScrubber.scrub(input) : [input])
      this.events.push({ ...scrubbed, runId: this.runId, seq: this.seq++, ts: this.clock.now() } as RunEvent);
  }

  scrub(text: string): string {
    return this.scrubber ? this.scrubber.text(text) : text;
  }

  addUsage(agentId: string, usage: TokenUsage): number {
    const price = this.state.agents.find((a) => a.spec.id === agentId)?.spec.price;
    const cost = this.meter.add(agentId, usage, price);
    this.checkBudget();
    return cost;
  }

  mediaFor(agentId: string, media: readonly MediaPart[]): MediaForAgent {
    return mediaForModel(media, this.state.agents.find((a) => a.spec.id === agentId)?.spec.mediaIn);
  }

  addToolCost(agentId: string, dollars: number): void {
    this.meter.addCost(agentId, dollars);
    this.checkBudget();
  }

  private checkBudget(): void {
    const budget = this.settings.maxCostUsd;
    if (budget !== null && this.meter.totalCost > budget) {
      this.stop(
        'budget',
        new BudgetExceededError(
          `cost budget of $${budget} exceeded ($${this.meter.totalCost.toFixed(4)} spent)`,
        ),
      );
    }
  }

  answerAccepted(agentIndex: number): void {
    if (this.settings.onNewAnswer !== 'restart') return;
    this.loop.restartOthers(agentIndex);
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
      : `${time} BUDGET LEFT: $${Math.max(0, budget - this.meter.totalCost).toFixed(4)} of $${budget}.`;
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
    this.cancelRequested = true;
    this.concludeAbort?.abort(reason);
  }

  /** True from `run.started` until `run.finished`. */
  private get running(): boolean {
    return this.seq > 0 && !this.events.isClosed;
  }

  /**
   * A message from the user (docs/protocol.md "Steering"): `human.message`, then each agent it is for
   * reads it at its next step. Agents it is for lose their counted votes, so they look again.
   */
  steer(message: SteeringMessage): SteerResult {
    const checked = checkSteering(this.state, message, this.running);
    if (!checked.accepted) return checked;
    return {
      accepted: true,
      seq: this.accept(this.scrub(checked.text), checked.target, message.source ?? 'api'),
    };
  }

  /** A Stop hook's block (stop-gate.ts): its reason to every agent, every vote cleared. */
  continueWith(reason: string, note: string): void {
    this.accept(reason, null, 'hook', { note, reopen: true });
  }

  /**
   * `human.message` for `text` (the agents read `note`, by default the text itself), then each agent
   * it is for reads it at its next step and loses its counted vote, so it looks again — while
   * coordination goes on, or when the message `reopen`s a run that had concluded.
   */
  private accept(
    text: string,
    targetIndex: number | null,
    source: SteeringSource,
    { note = text, reopen = false }: { note?: string; reopen?: boolean } = {},
  ): number {
    const target = targetIndex === null ? null : this.state.agent(targetIndex);
    this.emit({ type: 'human.message', text, target: target?.spec.id ?? null, source });
    // human.message is never held back by the scrubber: it is the event just emitted.
    const seq = this.seq - 1;
    this.inbox.add(seq, note, targetIndex);
    if (reopen || (!this.loop.isConcluding && this.stopped === null)) {
      const cleared = this.state.agents.filter((a) => a.vote !== null && (target === null || a === target));
      for (const agent of cleared) agent.vote = null;
      if (cleared.length > 0)
        this.emit({ type: 'votes.reset', causedBy: 'user', clearedVoters: cleared.map((a) => a.spec.id) });
    }
    this.loop.wake();
    return seq;
  }

  /** "Answer now": coordination stops and the best current answer is presented (as at a timeout). */
  answerNow(source: SteeringSource = 'api'): AnswerNowResult {
    const checked = checkAnswerNow({
      running: this.running,
      coordinating: coordinates(this) && !this.step && !this.loop.isConcluding && this.stopped === null,
      hasAnswer: this.state.currentAnswers().length > 0,
    });
    if (!checked.accepted) return checked;
    this.emit({ type: 'coordination.answer_now', source });
    this.stop('answer_now', new AnswerNowRequested());
    return checked;
  }

  /** Runs to completion. Never throws: every outcome ends in a `run.finished` event. */
  async execute(): Promise<void> {
    const startedAt = this.clock.now();
    this.startedAtMs = startedAt;
    this.emit({
      type: 'run.started',
      question: this.question,
      ...(this.attachments.length > 0 ? { attachments: this.attachments.map(mediaRef) } : {}),
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
    let outcome: ConcludedRun;
    // Whether the Stop hooks were asked about this outcome (they were not when it threw).
    let heard = false;
    try {
      const setUp = await setUpRun(this, this.runAbort.signal, this.step !== null);
      this.paraphrases = setUp.paraphrases;
      for (;;) {
        outcome = this.step
          ? await runStep(this, this.step)
          : coordinates(this)
            ? await this.loop.runCoordination()
            : await runSingleAgent(this);
        if (!this.stopGate) break;
        heard = true;
        if (!(await this.stopGate.goesOn(outcome, this.runAbort.signal))) break;
        heard = false;
      }
    } catch (error) {
      outcome = thrownOutcome(error, this.stopped === 'cancelled');
    } finally {
      clearTimeout(timer);
      clearTimeout(wrapUpTimer);
      this.externalSignal?.removeEventListener('abort', onExternalAbort);
      const ended = new CancelledError('run finished');
      this.runAbort.abort(ended);
      this.loop.abortAll(ended);
      await this.loop.settled();
      // Servers and child processes end with the run, whatever its outcome.
      await closeTools(this.state);
      this.disposeRunAbort();
    }
    // A run that failed or was stopped is still told to the Stop hooks (it cannot go on).
    if (this.stopGate && !heard) await this.stopGate.goesOn(outcome, new AbortController().signal);
    if (hasWorkspacesToConclude(this, outcome)) await this.concludeWorkspaces(outcome);
    this.emit({
      type: 'run.finished',
      ...outcome,
      durationMs: Math.max(0, this.clock.now() - startedAt),
      ...this.meter.totals(),
    });
    this.events.close();
  }

  /** Brings the winner's changes back under a signal that `cancel` (or the external signal) aborts. */
  private async concludeWorkspaces(outcome: ConcludedRun): Promise<void> {
    // Ends a wait for a person's review on Ctrl-C (the external signal) or a consumer that went away.
    const { controller, dispose } = linkedAbortController(this.externalSignal);
    this.concludeAbort = controller;
    if (this.cancelRequested) controller.abort(new CancelledError());
    try {
      await concludeWorkspaces(this, outcome, controller.signal);
    } finally {
      dispose();
      this.concludeAbort = null;
    }
  }

  stop(reason: StopReason, cause: unknown): void {
    if (this.stopped) return;
    this.stopped = reason;
    // The orchestrator timeout stops coordination only; the presentation gets its own turn timeout.
    this.loop.abortAll(cause);
    if (reason === 'cancelled') this.runAbort.abort(cause instanceof Error ? cause : new CancelledError());
    this.loop.wake();
  }

  withPresentationTimeout<T>(work: (signal: AbortSignal) => Promise<T>, agentIndex?: number): Promise<T> {
    return this.loop.withPresentationTimeout(work, agentIndex);
  }
}
