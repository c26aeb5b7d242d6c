import { randomBytes } from 'node:crypto';
import type { RunEvent } from '../types/events.js';
import { AgentSinks, type AgentSink } from './agent-sinks.js';
import { subagentEventCost, type SubagentState } from '../types/subagent-events.js';
import { describeError } from '../types/errors.js';
import { readContextFiles, type ContextFile } from './context-files.js';
import { subagentDir, writeCheckpoint, type SubagentCheckpoint } from './checkpoint.js';
import { SUBAGENT_ID, type SubagentTask } from './spawn-arguments.js';
import { SubagentRefusal } from './subagent-errors.js';
import type { SubagentType } from './subagent-types.js';
import { subagentView, type SubagentView } from './subagent-view.js';
import { waitFor } from './wait-for.js';
import type { ChildHandle, ChildLauncher, ChildOutcome, SubagentLimits } from './child-launch.js';
import { finishedEvent, newCheckpoint, startedEvent } from './subagent-records.js';

export type { AgentSink } from './agent-sinks.js';
export type {
  ChildHandle,
  ChildLaunch,
  ChildLauncher,
  ChildOutcome,
  SubagentLimits,
} from './child-launch.js';
export type { SubagentView } from './subagent-view.js';

interface Entry {
  checkpoint: SubagentCheckpoint;
  controller: AbortController;
  handle: ChildHandle | null;
  /** Settles when the subagent has ended and its checkpoint is written. */
  settled: Promise<void>;
  /** Dollars already counted into the parent agent. */
  counted: number;
  /** The previous turn's log folder it was taken over from (`--continue`), else null. */
  resumedFrom: string | null;
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

/**
 * The run's subagents. They belong to the run, not to the turn that spawned them: a turn restarted by
 * a new answer or stopped by its timeout abandons only its wait, while the subagents go on and their
 * results stay reachable by id until the run ends. Every change of state is checkpointed.
 */
export class SubagentManager {
  private readonly entries = new Map<string, Entry>();
  private readonly sinks = new AgentSinks();
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
    this.sinks.attach(agentId, sink);
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
      prepared.map(({ task, type, files }) =>
        this.launch(this.newCheckpoint(agentId, task, type, background), type, files),
      ),
    );
  }

  private newCheckpoint(
    agentId: string,
    task: SubagentTask,
    type: SubagentType | null,
    background: boolean,
  ): SubagentCheckpoint {
    this.counter += 1;
    return newCheckpoint(`sa${this.counter}-${randomBytes(4).toString('hex')}`, agentId, task, {
      subagentType: type?.name ?? null,
      timeoutSeconds: this.timeoutFor(task.timeout_seconds),
      background,
      startedAt: new Date(this.now()).toISOString(),
    });
  }

  /**
   * Takes over a previous turn's subagents (checkpoints read and checked by `readPreviousSubagents`):
   * finished ones stay reachable by id as they ended; running ones, whose process died with that turn,
   * are started again in the background — same id, task, type and context files, the team this run's
   * config gives them, a log folder of their own in this run's — and end as any other. Each is told
   * to its agent as a `subagent.started` naming the folder it came from.
   */
  restore(checkpoints: readonly SubagentCheckpoint[], from: string): Promise<void> {
    // New ids must not reuse an old one, whatever is spawned while these are being taken over.
    for (const old of checkpoints) {
      this.counter = Math.max(this.counter, Number(/^sa(\d+)-/.exec(old.id)?.[1] ?? 0));
    }
    // One after another, so the agent hears of them in the checkpoints' order on any machine.
    const all = (async () => {
      for (const old of checkpoints) {
        if (this.entries.has(old.id) || this.closed) continue;
        if (old.state !== 'running') {
          await this.keepFinished({ ...old }, from);
          continue;
        }
        const type = old.subagentType === null ? null : (this.options.types.get(old.subagentType) ?? null);
        const checkpoint: SubagentCheckpoint = {
          ...old,
          timeoutSeconds: this.timeoutFor(old.timeoutSeconds),
          background: true,
          startedAt: new Date(this.now()).toISOString(),
        };
        await this.launch(checkpoint, type, null, { from, counted: old.costUsd });
      }
    })();
    this.restoring.push(all);
    return all;
  }

  private readonly restoring: Promise<void>[] = [];

  private async keepFinished(checkpoint: SubagentCheckpoint, from: string): Promise<void> {
    const entry: Entry = {
      checkpoint,
      controller: new AbortController(),
      handle: null,
      settled: Promise.resolve(),
      counted: checkpoint.costUsd,
      resumedFrom: from,
    };
    this.entries.set(checkpoint.id, entry);
    // Copied into this run's log folder, so a later --continue of this turn still finds it.
    await this.save(checkpoint);
    const { agentId } = checkpoint;
    this.sinks.emit(agentId, startedEvent(checkpoint, from));
    const took = Date.parse(checkpoint.finishedAt ?? '') - Date.parse(checkpoint.startedAt);
    this.sinks.emit(agentId, finishedEvent(checkpoint, took));
  }

  /**
   * Registers a subagent, checkpoints it, tells its agent and starts its run. `files` null: read its
   * context files again from the agent's workspace (a re-started subagent), with the same checks.
   */
  private async launch(
    checkpoint: SubagentCheckpoint,
    type: SubagentType | null,
    files: readonly ContextFile[] | null,
    restored: { from: string; counted: number } | null = null,
  ): Promise<SubagentView> {
    const { id, agentId, timeoutSeconds } = checkpoint;
    const logDir = this.options.logDir();
    checkpoint.logDir = logDir === null ? null : subagentDir(logDir, id);
    const controller = new AbortController();
    let settle!: () => void;
    const entry: Entry = {
      checkpoint,
      controller,
      handle: null,
      settled: new Promise<void>((resolve) => (settle = resolve)),
      counted: restored?.counted ?? 0,
      resumedFrom: restored?.from ?? null,
    };
    this.entries.set(id, entry);
    await this.save(checkpoint);
    this.sinks.emit(agentId, startedEvent(checkpoint, entry.resumedFrom));
    // Its own time limit, as a backstop to the child run's own timeout (which ends it with its best answer).
    const timer = setTimeout(
      () => controller.abort(new SubagentRefusal('timeout')),
      (timeoutSeconds + 30) * 1000,
    );
    timer.unref?.();
    const startedAt = this.now();
    const finish = async (outcome: ChildOutcome) => {
      clearTimeout(timer);
      // A re-started subagent's run reports only its own spending: the earlier turn's is added to it.
      const cost = Math.max(checkpoint.costUsd, (restored?.counted ?? 0) + (outcome.costUsd ?? 0));
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
      this.sinks.emit(agentId, finishedEvent(checkpoint, this.now() - startedAt));
      settle();
    };
    const failed = (error: unknown): ChildOutcome => ({
      state: 'failed',
      answer: null,
      costUsd: null,
      error: { code: 'run_failed', message: describeError(error) },
    });
    try {
      const context =
        files ?? (await readContextFiles(this.options.workspaceOf(agentId), checkpoint.contextFiles));
      entry.handle = await this.options.launch({
        id,
        agentId,
        task: checkpoint.task,
        files: context,
        type,
        timeoutSeconds,
        logRoot: checkpoint.logDir,
        signal: controller.signal,
        onEvent: (event) => {
          const cost = subagentEventCost(event as RunEvent & Record<string, unknown>);
          if (cost > 0) this.count(entry, cost);
          if (!this.closedForEvents) {
            this.sinks.emit(agentId, { type: 'subagent.event', agentId, subagentId: id, event });
          }
        },
      });
      if (entry.handle.jobId) {
        checkpoint.jobId = entry.handle.jobId;
        await this.save(checkpoint);
      }
      void entry.handle.done.then(finish, (error: unknown) => finish(failed(error)));
    } catch (error) {
      await finish(failed(error));
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
    this.sinks.addCost(entry.checkpoint.agentId, dollars);
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
    return subagentView(entry.checkpoint, { withAnswer, restored: entry.resumedFrom !== null });
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
    if (!entry.handle.steer) {
      throw new SubagentRefusal(
        `send_message_to_subagent is not available for queued subagents: ${id} runs as a queue job on a worker; wait for its result or cancel it`,
      );
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
    // Re-starts under way register their entries first: they are stopped with the rest.
    await Promise.all(this.restoring);
    for (const entry of this.entries.values()) {
      if (entry.checkpoint.state === 'running') entry.controller.abort(new SubagentRefusal('cancelled'));
    }
    await Promise.all([...this.entries.values()].map((e) => e.settled));
    this.closedForEvents = true;
  }
}
