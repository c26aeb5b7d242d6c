import type { MediaPart } from '../types/media.js';
import { ConfigError } from '../types/errors.js';
import type { RunEvent, RunWarning } from '../types/events.js';
import type {
  AnswerNowResult,
  SteeringMessage,
  SteeringSource,
  SteerResult,
} from '../types/steering-events.js';
import type { StopHook } from '../types/stop-hook.js';
import type { ToolApprover, ToolHooks, ToolPolicy } from '../types/tool.js';
import type { WorkspaceHooks } from '../types/workspace.js';
import type { SecretScrubber } from '../util/secret-scrubber.js';
import { CoordinationRun } from './coordination-run.js';
import type { StepRequest } from './step-action.js';
import {
  defaultCoordinationSettings,
  systemClock,
  type AgentSpec,
  type Clock,
  type CoordinationSettings,
  type HistoryTurn,
} from './settings.js';

export interface OrchestratorOptions {
  agents: readonly AgentSpec[];
  settings?: Partial<CoordinationSettings>;
  /** Injectable time and randomness (tests). */
  clock?: Clock;
  /**
   * Holds every ordinary tool call until it resolves (`tool.approval.requested`/`resolved` events).
   * Omitted: calls run at once (`auto_approve: true`).
   */
  approveToolCall?: ToolApprover;
  /**
   * The permission rules, asked before every ordinary tool call (after the registry's fixed checks,
   * before `approveToolCall`); every decision is emitted as `tool.permission.decided`.
   */
  toolPolicy?: ToolPolicy;
  /** The user's hooks around tool calls (docs/hooks.md): PreToolUse before the rules, PostToolUse after. */
  toolHooks?: ToolHooks;
  /**
   * The user's `Stop` hooks (docs/hooks.md): asked each time the run would end; a `block` sends the
   * team back to work with its reason (at most `MAX_STOP_CONTINUATIONS` times).
   */
  stopHook?: StopHook;
  /** The agents' workspaces: snapshots on each answer, peers' files shown with the answers. */
  workspaces?: WorkspaceHooks;
  /** Emitted as `run.warning` events right after `run.started` (e.g. config keys that are not supported). */
  warnings?: readonly RunWarning[];
  /**
   * Masks the run's secrets in every event and in tool results before a model reads them
   * (`createSecretScrubber` from the known keys and tokens).
   */
  scrubber?: SecretScrubber;
}

export interface RunOptions {
  /** Aborting cancels every in-flight call; the stream still ends with `run.finished` (status `cancelled`). */
  signal?: AbortSignal;
  /** Earlier turns of a multi-turn session. */
  history?: readonly HistoryTurn[];
  runId?: string;
  /**
   * Step mode: instead of a whole coordination, the agent `step.agentId` (one of this orchestrator's
   * agents) takes one action against the recorded answers and votes, and the run ends. See docs/step-mode.md.
   */
  step?: StepRequest;
  /**
   * Media the user attaches to the question (images, audio, video, PDF), read and checked by the
   * caller (`readMediaFile` in the app). Each agent is shown the kinds its model takes
   * ({@link AgentSpec.mediaIn}) and told the names of the rest; events record them by path and hash.
   */
  attachments?: readonly MediaPart[];
}

let runCounter = 0;
const newRunId = (clock: Clock) => `run_${clock.now().toString(36)}_${(runCounter++).toString(36)}`;

/**
 * Coordinates several agents on one question (see docs/protocol.md). Pure: everything it touches
 * arrives through {@link AgentSpec} interfaces, and everything it does leaves as a `RunEvent`.
 *
 * @example
 * ```ts
 * const orchestrator = new Orchestrator({ agents: [{ id: 'a', backend }, { id: 'b', backend: other }] });
 * for await (const event of orchestrator.run('What is 2+2?')) console.log(event.type);
 * ```
 */
export class Orchestrator {
  readonly settings: CoordinationSettings;
  private readonly agents: readonly AgentSpec[];
  private readonly clock: Clock;
  private readonly approver: ToolApprover | undefined;
  private readonly toolPolicy: ToolPolicy | undefined;
  private readonly toolHooks: ToolHooks | undefined;
  private readonly stopHook: StopHook | undefined;
  private readonly workspaces: WorkspaceHooks | undefined;
  private readonly warnings: readonly RunWarning[];
  private readonly scrubber: SecretScrubber | undefined;

  constructor(options: OrchestratorOptions) {
    if (options.agents.length === 0)
      throw new ConfigError('no agents configured', { hint: 'add at least one agent' });
    const ids = new Set<string>();
    for (const agent of options.agents) {
      if (ids.has(agent.id)) throw new ConfigError(`duplicate agent id "${agent.id}"`);
      ids.add(agent.id);
    }
    this.agents = options.agents;
    this.settings = { ...defaultCoordinationSettings, ...options.settings };
    this.clock = options.clock ?? systemClock;
    this.approver = options.approveToolCall;
    this.toolPolicy = options.toolPolicy;
    this.toolHooks = options.toolHooks;
    this.stopHook = options.stopHook;
    this.workspaces = options.workspaces;
    this.warnings = options.warnings ?? [];
    this.scrubber = options.scrubber;
  }

  /**
   * Runs the protocol and streams its events. The last event is always `run.finished`. Stopping the
   * iteration early cancels the run. The stream also steers the run while it goes: `steer()` sends the
   * agents a message from the user, `answerNow()` stops coordination and presents the best answer so
   * far (docs/protocol.md "Steering"); both act once the stream is being read.
   */
  run(question: string, options: RunOptions = {}): RunStream {
    let current: CoordinationRun | null = null;
    const notStarted = {
      accepted: false,
      reason: 'not_running',
      message: 'the run has not started yet',
    } as const;
    const events = streamRun(() => (current = this.createRun(question, options)));
    return Object.assign(events, {
      steer: (message: SteeringMessage): SteerResult => current?.steer(message) ?? notStarted,
      answerNow: (source?: SteeringSource): AnswerNowResult => current?.answerNow(source) ?? notStarted,
    });
  }

  private createRun(question: string, options: RunOptions): CoordinationRun {
    return new CoordinationRun({
      runId: options.runId ?? newRunId(this.clock),
      question,
      history: options.history ?? [],
      settings: this.settings,
      clock: this.clock,
      agents: this.agents,
      signal: options.signal,
      ...(this.approver ? { approver: this.approver } : {}),
      ...(this.toolPolicy ? { toolPolicy: this.toolPolicy } : {}),
      ...(this.toolHooks ? { toolHooks: this.toolHooks } : {}),
      ...(this.stopHook ? { stopHook: this.stopHook } : {}),
      ...(this.workspaces ? { workspaces: this.workspaces } : {}),
      warnings: this.warnings,
      ...(this.scrubber ? { scrubber: this.scrubber } : {}),
      ...(options.step ? { step: options.step } : {}),
      ...(options.attachments ? { attachments: options.attachments } : {}),
    });
  }
}

/** A run's event stream that can also be steered while it runs (see {@link Orchestrator.run}). */
export interface RunStream extends AsyncGenerator<RunEvent, void, undefined> {
  /** Sends every agent (or `agentId`) a message from the user; `seq` is its `human.message` event's. */
  steer(message: SteeringMessage): SteerResult;
  /** Stops coordination and presents the best current answer (`coordination.answer_now`). */
  answerNow(source?: SteeringSource): AnswerNowResult;
}

async function* streamRun(create: () => CoordinationRun): AsyncGenerator<RunEvent, void, undefined> {
  const run = create();
  const done = run.execute();
  try {
    yield* run.events;
  } finally {
    run.cancel();
    await done;
  }
}
