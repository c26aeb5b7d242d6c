import { randomBytes } from 'node:crypto';
import type { RunEvent } from '../types/events.js';
import type { ToolEventInput } from '../types/tool.js';
import { subagentEventCost, type SubagentState } from '../types/subagent-events.js';
import { describeError } from '../types/errors.js';
import { readContextFiles, type ContextFile } from './context-files.js';
import { subagentDir, writeCheckpoint, type SubagentCheckpoint } from './checkpoint.js';
import { SUBAGENT_ID, type SubagentTask } from './spawn-arguments.js';
import { SubagentRefusal } from './subagent-errors.js';
import type { SubagentType } from './subagent-types.js';

/** The run's subagent limits (`orchestrator.coordination.*`), in seconds. */
export interface SubagentLimits {
  defaultTimeout: number;
  minTimeout: number;
  maxTimeout: number;
  maxConcurrent: number;
  /** Levels of subagents still allowed below this run (0: this run's agents may not spawn). */
  maxDepth: number;
}

/** How a child run ended. */
export interface ChildOutcome {
  state: Exclude<SubagentState, 'running'>;
  answer: string | null;
  /** Dollars the whole child run spent (its `run.finished`), when known. */
  costUsd: number | null;
  error?: { code: string; message: string };
}

/** What the launcher is asked to start: one whole massgen run. */
export interface ChildLaunch {
  id: string;
  agentId: string;
  task: string;
  files: readonly ContextFile[];
  type: SubagentType | null;
  timeoutSeconds: number;
  /** Its log folder's parent (`<parentLog>/subagents/<id>`), or null with logging off. */
  logRoot: string | null;
  signal: AbortSignal;
  /** Every event of the child run, in order. */
  onEvent(event: RunEvent): void;
}

/** A started child run. */
export interface ChildHandle {
  /** Steering: the text reaches every agent of the child run at its next step. */
  steer(text: string): boolean;
  /** Settles when the child run has ended and its logs are closed; never rejects. */
  done: Promise<ChildOutcome>;
}

export type ChildLauncher = (launch: ChildLaunch) => Promise<ChildHandle>;

/** Where one agent's subagent events and costs go (its tool registry's lifecycle). */
export interface AgentSink {
  emit(event: ToolEventInput): void;
  addCost(dollars: number): void;
}

interface Entry {
  checkpoint: SubagentCheckpoint;
  controller: AbortController;
  handle: ChildHandle | null;
  /** Settles when the subagent has ended and its checkpoint is written. */
  settled: Promise<void>;
  /** Dollars already counted into the parent agent. */
  counted: number;
}

/** Options of {@link SubagentManager}. */
export interface SubagentManagerOptions {
  limits: SubagentLimits;
  launch: ChildLauncher;
  types: ReadonlyMap<string, SubagentType>;
  /** The parent's log folder, once it exists (null with logging off). */
  logDir(): string | null;
  /** An agent's workspace, where its context files are read from. */
  workspaceOf(agentId: string): string | null;
  now?: () => number;
}

/** A subagent as the tools report it. */
export interface SubagentView {
  id: string;
  state: SubagentState;
  task: string;
  subagent_type: string | null;
  cost_usd: number;
  answer?: string | null;
  error?: string;
}

/**
 * The run's subagents. They belong to the run, not to the turn that spawned them: a turn restarted by
 * a new answer or stopped by its timeout abandons only its wait, while the subagents go on and their
 * results stay reachable by id until the run ends. Every change of state is checkpointed.
 */
export class SubagentManager {
  private readonly entries = new Map<string, Entry>();
  private readonly sinks = new Map<string, AgentSink>();
  private counter = 0;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly options: SubagentManagerOptions) {
    this.now = options.now ?? Date.now;
  }

  get limits(): SubagentLimits {
    return this.options.limits;
  }

  /** Connects an agent's event and cost sink (its tool registry's start). */
  attach(agentId: string, sink: AgentSink): void {
    this.sinks.set(agentId, sink);
  }

  /** The subagent's time limit: the task's, else the default, clamped by the min and max. */
  timeoutFor(asked: number | undefined): number {
    const { defaultTimeout, minTimeout, maxTimeout } = this.options.limits;
    return Math.min(maxTimeout, Math.max(minTimeout, asked ?? defaultTimeout));
  }

  private running(): number {
    return [...this.entries.values()].filter((e) => e.checkpoint.state === 'running').length;
  }

  /** Starts one subagent per task; refuses the whole call when a limit would be passed. */
  async spawn(agentId: string, tasks: readonly SubagentTask[], background: boolean): Promise<SubagentView[]> {
    if (this.closed) throw new SubagentRefusal('the run is ending: no new subagents');
    const { maxDepth, maxConcurrent } = this.options.limits;
    if (maxDepth < 1) {
      throw new SubagentRefusal(
        'subagents may not spawn subagents here (max_subagent_depth reached): do the work yourself',
      );
    }
    const running = this.running();
    if (running + tasks.length > maxConcurrent) {
      throw new SubagentRefusal(
        `subagent_max_concurrent is ${maxConcurrent}: ${running} running, ${tasks.length} asked; wait for one with subagent_result or cancel one`,
      );
    }
    // Everything is checked before anything starts: a refused call starts nothing.
    const prepared = [];
    for (const task of tasks) {
      const type = task.subagent_type === undefined ? null : this.options.types.get(task.subagent_type);
      if (type === undefined) {
        throw new SubagentRefusal(
          `unknown subagent_type "${task.subagent_type}": known types are ${[...this.options.types.keys()].join(', ') || 'none'}`,
        );
      }
      const files = await readContextFiles(this.options.workspaceOf(agentId), task.context_files ?? []);
      prepared.push({ task, type, files });
    }
    return Promise.all(
      prepared.map(({ task, type, files }) => this.start(agentId, task, type, files, background)),
    );
  }

  private async start(
    agentId: string,
    task: SubagentTask,
    type: SubagentType | null,
    files: readonly ContextFile[],
    background: boolean,
  ): Promise<SubagentView> {
    this.counter += 1;
    const id = `sa${this.counter}-${randomBytes(4).toString('hex')}`;
    const timeoutSeconds = this.timeoutFor(task.timeout_seconds);
    const logDir = this.options.logDir();
    const checkpoint: SubagentCheckpoint = {
      version: 1,
      id,
      agentId,
      task: task.task,
      subagentType: type?.name ?? null,
      timeoutSeconds,
      background,
      state: 'running',
      answer: null,
      costUsd: 0,
      startedAt: new Date(this.now()).toISOString(),
      finishedAt: null,
      logDir: logDir === null ? null : subagentDir(logDir, id),
      error: null,
    };
    const controller = new AbortController();
    let settle!: () => void;
    const entry: Entry = {
      checkpoint,
      controller,
      handle: null,
      settled: new Promise<void>((resolve) => (settle = resolve)),
      counted: 0,
    };
    this.entries.set(id, entry);
    await this.save(checkpoint);
    const sink = this.sinks.get(agentId);
    sink?.emit({
      type: 'subagent.started',
      agentId,
      subagentId: id,
      task: task.task,
      subagentType: checkpoint.subagentType,
      timeoutSeconds,
      background,
      logDir: checkpoint.logDir,
    });
    // Its own time limit, as a backstop to the child run's own timeout (which ends it with its best answer).
    const timer = setTimeout(
      () => controller.abort(new SubagentRefusal('timeout')),
      (timeoutSeconds + 30) * 1000,
    );
    timer.unref?.();
    const startedAt = this.now();
    const finish = async (outcome: ChildOutcome) => {
      clearTimeout(timer);
      const cost = Math.max(checkpoint.costUsd, outcome.costUsd ?? 0);
      this.count(entry, cost - entry.counted);
      Object.assign(checkpoint, {
        state:
          controller.signal.aborted && outcome.state === 'cancelled'
            ? this.abortState(controller)
            : outcome.state,
        answer: outcome.answer,
        costUsd: cost,
        finishedAt: new Date(this.now()).toISOString(),
        error: outcome.error ?? null,
      });
      await this.save(checkpoint);
      this.sinks.get(agentId)?.emit({
        type: 'subagent.finished',
        agentId,
        subagentId: id,
        state: checkpoint.state as Exclude<SubagentState, 'running'>,
        answer: checkpoint.answer,
        costUsd: checkpoint.costUsd,
        durationMs: Math.max(0, this.now() - startedAt),
        ...(checkpoint.error ? { error: checkpoint.error } : {}),
      });
      settle();
    };
    try {
      entry.handle = await this.options.launch({
        id,
        agentId,
        task: task.task,
        files,
        type,
        timeoutSeconds,
        logRoot: checkpoint.logDir,
        signal: controller.signal,
        onEvent: (event) => {
          const cost = subagentEventCost(event as RunEvent & Record<string, unknown>);
          if (cost > 0) this.count(entry, cost);
          if (!this.closedForEvents) {
            this.sinks.get(agentId)?.emit({ type: 'subagent.event', agentId, subagentId: id, event });
          }
        },
      });
      void entry.handle.done.then(finish, (error: unknown) =>
        finish({
          state: 'failed',
          answer: null,
          costUsd: null,
          error: { code: 'run_failed', message: describeError(error) },
        }),
      );
    } catch (error) {
      await finish({
        state: 'failed',
        answer: null,
        costUsd: null,
        error: { code: 'run_failed', message: describeError(error) },
      });
    }
    return this.view(entry);
  }

  private closedForEvents = false;

  private abortState(controller: AbortController): SubagentState {
    const reason: unknown = controller.signal.reason;
    return reason instanceof SubagentRefusal && reason.message === 'timeout' ? 'timeout' : 'cancelled';
  }

  /** Adds dollars to the parent agent as they are spent, so the run's budget sees them at once. */
  private count(entry: Entry, dollars: number): void {
    if (!(dollars > 0)) return;
    entry.counted += dollars;
    entry.checkpoint.costUsd = Math.max(entry.checkpoint.costUsd, entry.counted);
    this.sinks.get(entry.checkpoint.agentId)?.addCost(dollars);
  }

  private async save(checkpoint: SubagentCheckpoint): Promise<void> {
    const logDir = this.options.logDir();
    if (logDir === null) return;
    await writeCheckpoint(logDir, checkpoint).catch(() => undefined);
  }

  /** The agent's own subagent with this id; anything else is refused the same way. */
  private own(agentId: string, id: string): Entry {
    const entry = SUBAGENT_ID.test(id) ? this.entries.get(id) : undefined;
    if (!entry || entry.checkpoint.agentId !== agentId) {
      throw new SubagentRefusal(
        `no subagent "${id.slice(0, 100)}" of yours in this run: list_subagents shows your subagents' ids`,
      );
    }
    return entry;
  }

  private view(entry: Entry, withAnswer = false): SubagentView {
    const c = entry.checkpoint;
    return {
      id: c.id,
      state: c.state,
      task: c.task.length > 200 ? `${c.task.slice(0, 200)}…` : c.task,
      subagent_type: c.subagentType,
      cost_usd: Number(c.costUsd.toFixed(6)),
      ...(withAnswer ? { answer: c.answer } : {}),
      ...(c.error ? { error: c.error.message } : {}),
    };
  }

  list(agentId: string): SubagentView[] {
    return [...this.entries.values()]
      .filter((e) => e.checkpoint.agentId === agentId)
      .map((e) => this.view(e));
  }

  /** The subagent's state and answer, waiting up to `waitSeconds` (or until `signal`) while it runs. */
  async result(agentId: string, id: string, waitSeconds: number, signal: AbortSignal): Promise<SubagentView> {
    const entry = this.own(agentId, id);
    if (entry.checkpoint.state === 'running' && waitSeconds > 0) {
      const waitMs = Math.min(waitSeconds, this.options.limits.maxTimeout + 60) * 1000;
      await waitFor(entry.settled, waitMs, signal);
    }
    return this.view(entry, true);
  }

  /** Waits for every given subagent to end (or `signal`: the turn stopped; they go on). */
  async waitAll(agentId: string, ids: readonly string[], signal: AbortSignal): Promise<SubagentView[]> {
    const entries = ids.map((id) => this.own(agentId, id));
    await waitFor(
      Promise.all(entries.map((e) => e.settled)),
      (this.options.limits.maxTimeout + 60) * 1000,
      signal,
    );
    return entries.map((e) => this.view(e, true));
  }

  message(agentId: string, id: string, text: string): boolean {
    const entry = this.own(agentId, id);
    if (entry.checkpoint.state !== 'running' || !entry.handle) {
      throw new SubagentRefusal(`subagent ${id} is ${entry.checkpoint.state}: it takes no more messages`);
    }
    return entry.handle.steer(text);
  }

  async cancel(agentId: string, id: string): Promise<SubagentView> {
    const entry = this.own(agentId, id);
    if (entry.checkpoint.state === 'running') {
      entry.controller.abort(new SubagentRefusal('cancelled'));
      await entry.settled;
    }
    return this.view(entry, true);
  }

  /**
   * The run ends: subagents still running are stopped (their checkpoints then say `cancelled`) and
   * their logs closed before the parent's.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const entry of this.entries.values()) {
      if (entry.checkpoint.state === 'running') entry.controller.abort(new SubagentRefusal('cancelled'));
    }
    await Promise.all([...this.entries.values()].map((e) => e.settled));
    this.closedForEvents = true;
  }
}

/** Resolves when `promise` settles, after `ms`, or when `signal` aborts (then rejects with its reason). */
async function waitFor(promise: Promise<unknown>, ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw signal.reason;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      promise,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
      new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
