import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  createSessionRunner,
  loadSession,
  sessionsRoot,
  type Env,
  type MassGenConfig,
  type PreparedRun,
  type SessionRunner,
  problemsOfError,
  startProblems,
  type StartProblem,
} from '../../app/index.js';
import type { SteeringRefusal } from '../../types/steering-events.js';
import { describeError } from '../../types/errors.js';
import type { RunEvent } from '../../types/events.js';

/** One run started from the web UI: its events so far, and the handles to steer it. */
export interface HubRun {
  id: string;
  question: string;
  /** The config as the user picked it (an `@examples/…` name or a path). */
  configRef: string;
  /** Runs of one session share it: the first run's id. */
  sessionKey: string;
  events: RunEvent[];
  done: boolean;
  /** Why the run could not start (a config or workspace problem), else null. */
  error: string | null;
  logDir: string | null;
  /** Agents with a workspace, by agent id: absolute folders. */
  workspaces: Record<string, string>;
}

interface Live {
  run: HubRun;
  prepared: PreparedRun | null;
  controller: AbortController;
  listeners: Set<(event: RunEvent | typeof DONE) => void>;
  /** The run's uploads folder, removed with the run. */
  uploadsDir: string | null;
  /** `start` has returned it: from then on the hub owns its uploads and may forget it. */
  started: boolean;
  /** Settles once the run is over (its turn has returned). */
  ended: Promise<void>;
}

/** What the hub needs from the server around it. */
export interface RunHubOptions {
  cwd: string;
  env: Env;
  /** Turns the user's config reference into what the library takes (a path, or a parsed config). */
  resolveConfig: (ref: string) => string | MassGenConfig;
  /**
   * Finished runs kept (default 100); older ones are forgotten (their logs stay, as past runs) and
   * their uploads removed.
   */
  keepFinished?: number;
  /** Removes a run's uploads folder when the run is forgotten or the server stops. */
  removeUploads?: (dir: string) => Promise<void>;
}

/** What starts a run: a new session, the next turn of a live run's session, or a saved session's. */
export interface StartRequest {
  question: string;
  /** The config reference; for a saved session, used only when the session's own config file is gone. */
  config: string;
  followUpOf?: string;
  /** A saved session's id (`.massgen/sessions/<id>`). */
  session?: string;
  /** Files the user attached to the question: absolute paths of the stored uploads. */
  attachments?: readonly string[];
  /**
   * The folder those uploads are in: the hub owns it once the run has started, and removes it with
   * the run (forgotten, or the server stops). Not when start throws: then it is the caller's.
   */
  uploadsDir?: string;
}

/**
 * The runs of one `massgen --web` server: each is a session turn (follow-ups continue the session),
 * every event is kept in order so any number of tabs can watch, join late or reconnect and catch up
 * from a sequence number without duplicates.
 */
export class RunHub {
  private readonly runs = new Map<string, Live>();
  private readonly sessions = new Map<string, SessionRunner>();
  private counter = 0;

  constructor(private readonly options: RunHubOptions) {}

  /**
   * Starts a run (a new session, or the next turn of `followUpOf`'s session) and resolves once it is
   * prepared (config checked, backends built) and streaming.
   * @throws a `ConfigError` (with diagnostics) for a bad config, before anything runs; a
   *   {@link RunStartError} listing every problem (each agent's missing key…) when the run cannot
   *   start — then nothing is left behind: no run in the hub, no session.
   */
  async start(request: StartRequest): Promise<HubRun> {
    const previous = request.followUpOf ? this.runs.get(request.followUpOf) : undefined;
    if (request.followUpOf && !previous) throw new UnknownRunError(request.followUpOf);
    const id = `run${++this.counter}`;
    const saved = request.session
      ? await loadSession(sessionsRoot(this.options.cwd), request.session)
      : undefined;
    const sessionKey = previous?.run.sessionKey ?? (saved ? `session:${saved.id}` : id);
    const configRef = previous?.run.configRef ?? request.config;
    let runner = this.sessions.get(sessionKey);
    const newRunner = !runner;
    if (!runner) {
      // A saved session runs on its own config file while it exists, as `massgen --session-id` does.
      const own = saved && path.isAbsolute(saved.configSource) && existsSync(saved.configSource);
      runner = createSessionRunner({
        config: own ? saved.configSource : this.options.resolveConfig(configRef),
        cwd: this.options.cwd,
        env: this.options.env,
        // The review panel shows the winner's changes to isolated context paths before they are applied.
        review: 'ask',
        // The Approvals area answers held calls, `memory.save: ask`'s saves among them.
        interactive: true,
        ...(saved ? { session: saved } : {}),
      });
      this.sessions.set(sessionKey, runner);
    }
    // Every problem at once, before anything starts (each agent's missing key, not only the first).
    const problems = await startProblems(runner.config, this.options.env);
    if (problems.length > 0) {
      if (newRunner) this.sessions.delete(sessionKey);
      throw new RunStartError(problems);
    }
    const massgen = path.join(this.options.cwd, '.massgen', 'workspaces');
    const workspaces: Record<string, string> = {};
    for (const agent of runner.config.agents) {
      if (agent.backend.cwd) workspaces[agent.id] = path.join(massgen, agent.backend.cwd);
    }
    const run: HubRun = {
      id,
      question: request.question,
      configRef,
      sessionKey,
      events: [],
      done: false,
      error: null,
      logDir: null,
      workspaces,
    };
    let ended!: () => void;
    const live: Live = {
      run,
      prepared: null,
      controller: new AbortController(),
      listeners: new Set(),
      uploadsDir: request.uploadsDir ?? null,
      started: false,
      ended: new Promise<void>((resolve) => (ended = resolve)),
    };
    this.runs.set(id, live);
    // Settled when the run is prepared (null), or with the error it could not start with.
    let started!: (error: unknown) => void;
    const preparing = new Promise<unknown>((resolve) => (started = resolve));
    const config = runner.config;
    void runner
      .runTurn(request.question, {
        signal: live.controller.signal,
        ...(request.attachments?.length ? { attachments: request.attachments } : {}),
        // A turn that cannot start is reported to the caller, not stored as a session turn.
        recordFailedStart: false,
        onPrepared: (prepared) => {
          live.prepared = prepared;
          run.logDir = prepared.logDir;
          started(null);
        },
        onEvent: (event) => {
          run.events.push(event);
          for (const listener of live.listeners) listener(event);
        },
      })
      .then((outcome) => {
        if (outcome.prepareError) {
          run.error = describeError(outcome.prepareError);
          started(outcome.prepareError);
        }
      })
      .catch((error: unknown) => {
        run.error = describeError(error);
      })
      .finally(() => {
        run.done = true;
        live.prepared = null;
        for (const listener of live.listeners) listener(DONE);
        live.listeners.clear();
        started(new Error('the run ended before it started'));
        ended();
        this.forgetOldRuns();
      });
    const failure = await preparing;
    if (failure !== null) {
      this.runs.delete(id);
      if (newRunner) this.sessions.delete(sessionKey);
      throw new RunStartError(
        problemsOfError(
          failure,
          config.agents.map((a) => a.id),
        ),
      );
    }
    live.started = true;
    // It may have ended already (a run that ends is forgotten only once started): keep the bound.
    this.forgetOldRuns();
    return run;
  }

  /** Forgets the oldest finished runs beyond `keepFinished`, removing their uploads. */
  private forgetOldRuns(): void {
    const keep = this.options.keepFinished ?? 100;
    const finished = [...this.runs.entries()].filter(([, live]) => live.run.done && live.started);
    for (const [id, live] of finished.slice(0, Math.max(0, finished.length - keep))) {
      this.runs.delete(id);
      void this.release(live);
    }
  }

  private async release(live: Live): Promise<void> {
    const dir = live.uploadsDir;
    live.uploadsDir = null;
    if (dir) await this.options.removeUploads?.(dir).catch(() => undefined);
  }

  /**
   * A message from the user to a live run's agents (every agent, or `agentId`): 202 with the seq of
   * its `human.message` event, or why not — 404 unknown run, 409 over (or not yet started), 400 bad
   * text or an unknown agent (naming the known ones).
   */
  steer(id: string, message: { text: string; agentId?: string }): SteeringReply {
    const live = this.runs.get(id);
    if (!live) return { status: 404, error: `no run with id "${id}"` };
    if (live.run.done || !live.prepared) return { status: 409, error: `run "${id}" is over` };
    const result = live.prepared.steer({ ...message, source: 'web' });
    return result.accepted ? { status: 202, seq: result.seq } : refusal(result);
  }

  /** "Answer now" for a live run: 202, or 404/409 with why not (see {@link RunHub.steer}). */
  answerNow(id: string): SteeringReply {
    const live = this.runs.get(id);
    if (!live) return { status: 404, error: `no run with id "${id}"` };
    if (live.run.done || !live.prepared) return { status: 409, error: `run "${id}" is over` };
    const result = live.prepared.answerNow('web');
    return result.accepted ? { status: 202 } : refusal(result);
  }

  /** The human's answer to an `ask_others` question of a live run: 202, or 404/409/400 with why not. */
  answerQuestion(id: string, questionId: string, text: string): SteeringReply {
    const live = this.runs.get(id);
    if (!live) return { status: 404, error: `no run with id "${id}"` };
    if (live.run.done || !live.prepared) return { status: 409, error: `run "${id}" is over` };
    const result = live.prepared.answerQuestion(questionId, text, 'web');
    if (result.accepted) return { status: 202 };
    return { status: result.reason === 'invalid_text' ? 400 : 409, error: result.message };
  }

  get(id: string): HubRun | undefined {
    return this.runs.get(id)?.run;
  }

  list(): HubRun[] {
    return [...this.runs.values()].map((l) => l.run).reverse();
  }

  /**
   * Replays the events after `afterSeq`, then follows the run live. `listener` gets {@link DONE} once
   * the run is over. Returns the unsubscribe function.
   */
  subscribe(id: string, afterSeq: number, listener: (event: RunEvent | typeof DONE) => void): () => void {
    const live = this.runs.get(id);
    if (!live) throw new UnknownRunError(id);
    for (const event of live.run.events) if (event.seq > afterSeq) listener(event);
    if (live.run.done) {
      listener(DONE);
      return () => {};
    }
    live.listeners.add(listener);
    return () => live.listeners.delete(listener);
  }

  /** Cancels a run in progress; false when it is unknown or already over. */
  cancel(id: string): boolean {
    const live = this.runs.get(id);
    if (!live || live.run.done) return false;
    live.controller.abort();
    return true;
  }

  /** Answers a held tool call; false when no such call is waiting. */
  respondToApproval(id: string, agentId: string, callId: string, approved: boolean): boolean {
    const prepared = this.runs.get(id)?.prepared;
    if (!prepared) return false;
    return prepared.respondToApproval(
      agentId,
      callId,
      approved
        ? { approved: true, by: 'web' }
        : { approved: false, reason: 'denied in the web UI', by: 'web' },
    );
  }

  /** Answers a review of the winner's changes; false when no such review is waiting. */
  respondToReview(id: string, reviewId: string, apply: 'all' | 'none' | readonly string[]): boolean {
    const prepared = this.runs.get(id)?.prepared;
    if (!prepared) return false;
    return prepared.respondToReview(reviewId, apply, 'web');
  }

  /** Cancels every run, waits for each to end, and removes their uploads (server shutdown). */
  async close(): Promise<void> {
    const all = [...this.runs.values()];
    for (const live of all) if (!live.run.done) live.controller.abort();
    await Promise.all(all.map((live) => live.ended));
    await Promise.all(all.map((live) => this.release(live)));
  }
}

/** Sent to subscribers after the last event of a run. */
export const DONE = Symbol('run done');

/** The HTTP side of a steering request: accepted (202, with the message's seq) or refused. */
export type SteeringReply = { status: 202; seq?: number } | { status: 400 | 404 | 409; error: string };

const refusal = (result: { reason: SteeringRefusal; message: string }): SteeringReply => ({
  status: result.reason === 'invalid_text' || result.reason === 'unknown_agent' ? 400 : 409,
  error: result.message,
});

/** A run that could not start, with every reason why (`POST /api/runs` answers 400 with them). */
export class RunStartError extends Error {
  constructor(readonly problems: StartProblem[]) {
    super(
      problems.length === 1
        ? `the run cannot start: ${problems[0]?.message ?? ''}`
        : `the run cannot start: ${problems.length} problems`,
    );
    this.name = 'RunStartError';
  }
}

export class UnknownRunError extends Error {
  constructor(readonly runId: string) {
    super(`unknown run "${runId}"`);
    this.name = 'UnknownRunError';
  }
}
