import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  isExampleRef,
  prepareRun,
  resolveExampleRef,
  type Env,
  type RunLauncher,
} from '../app/essentials.js';
import type { ExtraContextPath } from '../app/extra-context-paths.js';
import { questionWithAttachments, readAttachments } from '../batch/attachments.js';
import { configProblem } from '../batch/in-process-executor.js';
import { RunSlots, ServerBusyError } from '../server/openai/run-slots.js';
import { CancelledError, ConfigError, MassGenError, describeError } from '../types/errors.js';
import type { ErrorInfo } from '../types/events.js';
import { systemClock, type Clock } from '../util/clock.js';
import { AllowedFolders } from './allowed-folders.js';
import { TrackedRun } from './tracked-run.js';

/** What a client asks to run. */
export interface RunRequest {
  question: string;
  /** A config file (relative to the server's folder) or a bundled example; default: the server's config. */
  config?: string;
  contextPaths?: readonly ExtraContextPath[];
  /** Text files whose contents follow the question (as `massgen batch` attaches them). */
  attachments?: readonly string[];
}

/** Options of {@link RunRegistry}. */
export interface RunRegistryOptions {
  cwd: string;
  env: Env;
  /**
   * Folders beside `cwd` whose files clients may name (`--allow-path`). Every path a client gives —
   * config, attachments, context paths — must lie in `cwd` or one of these, symbolic links resolved.
   */
  allowedPaths?: readonly string[];
  /** The config `run` uses when the client names none (a path or `@examples/NAME`). */
  config?: string;
  /** Runs at once (default 2). */
  maxConcurrent?: number;
  /** Runs waiting for a slot (default 8); beyond that `run` is refused. */
  maxQueue?: number;
  /** Write each run's log folder (default: each config's `ui.logging_enabled`). */
  logging?: boolean;
  clock?: Clock;
  /** Finished runs kept for `status` and `result` (default 100; the oldest go first). */
  keepFinished?: number;
  /** Runs elsewhere (e.g. on queue workers) instead of in this process. */
  launch?: RunLauncher;
  /** Called once a run is over (a log line on stderr). */
  onRunFinished?: (run: TrackedRun) => void;
}

/** No run with that id (never started here, or forgotten: only the newest finished runs are kept). */
export class UnknownRunError extends MassGenError {
  constructor(id: string) {
    super('usage_error', `no run "${id.slice(0, 80)}" on this server`, {
      hint: 'use the run_id that run returned; list_runs shows the runs this server knows',
    });
  }
}

const errorInfo = (error: unknown): ErrorInfo => ({
  code: error instanceof MassGenError ? error.code : 'run_failed',
  message: describeError(error),
});

/**
 * The MCP server's runs: started in the background, bounded like `massgen serve` (a few at once, a
 * queue behind them, a refusal beyond), each tracked until its result is read, and all cancelled when
 * the server stops. Shared by every client session, so a client that reconnects finds its runs.
 */
export class RunRegistry {
  private readonly runs = new Map<string, TrackedRun>();
  private readonly slots: RunSlots;
  private readonly clock: Clock;
  private readonly folders: AllowedFolders;

  /** @throws {ConfigError} when an allowed path does not exist. */
  constructor(private readonly options: RunRegistryOptions) {
    this.slots = new RunSlots(options.maxConcurrent ?? 2, options.maxQueue ?? 8);
    this.clock = options.clock ?? systemClock;
    this.folders = new AllowedFolders(path.resolve(options.cwd), options.allowedPaths ?? []);
  }

  get limits(): { maxConcurrent: number; maxQueue: number } {
    return { maxConcurrent: this.slots.maxConcurrent, maxQueue: this.slots.maxQueue };
  }

  /**
   * The config file a reference names: a bundled example (`@examples/NAME`, or a bare NAME when no such
   * file exists here), else a file relative to the server's folder. A client's file must lie in an
   * allowed folder; the server's own `--config` (given by the user) need not.
   *
   * @throws {ConfigError} when neither exists, or the client's file is outside the allowed folders.
   */
  resolveConfig(ref: string | undefined): string {
    const given = ref?.trim();
    const chosen = given || this.options.config;
    if (!chosen)
      throw new ConfigError('no config given, and the server has none', {
        hint: 'pass config (a YAML file or an example name from list_examples), or start massgen mcp --config FILE',
      });
    if (isExampleRef(chosen)) return resolveExampleRef(chosen);
    const file = given ? this.folders.resolve(chosen, 'config') : path.resolve(this.options.cwd, chosen);
    if (existsSync(file)) return file;
    try {
      return resolveExampleRef(chosen);
    } catch {
      throw new ConfigError(`config not found: ${file}`, {
        hint: 'give a YAML file relative to the folder massgen mcp runs in, or an example name (list_examples)',
      });
    }
  }

  /**
   * Starts a run in the background and returns it at once (queued when every slot is taken).
   *
   * @throws {ConfigError} for a config that cannot run here, or an attachment that cannot be read.
   * @throws {ServerBusyError} when every slot and queue place is taken.
   */
  async start(request: RunRequest): Promise<TrackedRun> {
    if (this.slots.full) throw new ServerBusyError(this.slots.retryAfterSeconds);
    const configFile = this.resolveConfig(request.config);
    const problem = await configProblem(configFile, this.options.cwd, this.options.env, !this.options.launch);
    if (problem) throw problem;
    const attachments = await readAttachments(
      (request.attachments ?? []).map((file) => this.folders.resolve(file, 'attachment')),
    );
    const contextPaths = request.contextPaths?.map((entry) => ({
      ...entry,
      path: this.folders.resolve(entry.path, 'context path'),
    }));
    const question = questionWithAttachments(request.question, attachments);
    const run = new TrackedRun(
      `mg_${randomBytes(6).toString('hex')}`,
      request.question,
      configFile,
      this.clock.now(),
    );
    this.runs.set(run.id, run);
    this.forgetOldRuns();
    void this.execute(run, question, { ...request, ...(contextPaths ? { contextPaths } : {}) });
    return run;
  }

  private async execute(run: TrackedRun, question: string, request: RunRequest): Promise<void> {
    let release: (() => void) | null = null;
    try {
      release = await this.slots.acquire(run.controller.signal);
      run.starting();
      const options = {
        question,
        config: run.configFile,
        cwd: this.options.cwd,
        env: this.options.env,
        signal: run.controller.signal,
        ...(request.contextPaths?.length ? { contextPaths: request.contextPaths } : {}),
        ...(this.options.logging === undefined ? {} : { logging: this.options.logging }),
        ...(this.options.clock ? { clock: this.options.clock } : {}),
      };
      let events;
      if (this.options.launch) events = await this.options.launch(options);
      else {
        const prepared = await prepareRun(options);
        run.logDir = prepared.logDir;
        const configDir = path.dirname(run.configFile);
        run.writablePaths = prepared.config.orchestrator.context_paths
          .filter((entry) => entry.permission === 'write')
          .map((entry) => path.resolve(configDir, entry.path));
        events = prepared.stream();
      }
      for (let next = await events.next(); ; next = await events.next()) {
        if (next.done) {
          run.finish(next.value);
          break;
        }
        run.apply(next.value);
      }
    } catch (error) {
      const cancelled = run.controller.signal.aborted;
      run.finish(
        null,
        cancelled ? errorInfo(new CancelledError('cancelled before it started')) : errorInfo(error),
      );
    } finally {
      release?.();
      this.options.onRunFinished?.(run);
    }
  }

  /** The run `id`. @throws {UnknownRunError} */
  get(id: string): TrackedRun {
    const run = this.runs.get(id);
    if (!run) throw new UnknownRunError(id);
    return run;
  }

  /** Every run this server knows, newest first. */
  list(): TrackedRun[] {
    return [...this.runs.values()].reverse();
  }

  /** Stops a run (its model requests are aborted; its logs end in a terminal state). */
  cancel(id: string): TrackedRun {
    const run = this.get(id);
    if (!run.finished) run.controller.abort(new CancelledError('cancelled by the MCP client'));
    return run;
  }

  /**
   * Waits until the run is over, `timeoutMs` passes or `signal` aborts (the client gave up), calling
   * `onMilestone` for each milestone meanwhile. Resolves either way; look at `run.finished`.
   */
  async wait(
    run: TrackedRun,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    onMilestone?: (milestone: TrackedRun['milestone']) => void,
  ): Promise<void> {
    if (run.finished || timeoutMs <= 0) return;
    const unsubscribe = onMilestone ? run.subscribe(onMilestone) : () => undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      await Promise.race([
        run.done,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
          onAbort = () => resolve();
          signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      unsubscribe();
    }
  }

  /** Keeps every unfinished run and the newest `keepFinished` finished ones. */
  private forgetOldRuns(): void {
    const keep = this.options.keepFinished ?? 100;
    const finished = [...this.runs.values()].filter((r) => r.finished);
    for (const run of finished.slice(0, Math.max(0, finished.length - keep))) this.runs.delete(run.id);
  }

  /** Cancels every run in progress and waits until each has ended (its logs flushed). */
  async close(): Promise<void> {
    const open = [...this.runs.values()].filter((r) => !r.finished);
    for (const run of open) run.controller.abort(new CancelledError('the MCP server is shutting down'));
    await Promise.all(open.map((r) => r.done));
  }
}

export { ServerBusyError };
