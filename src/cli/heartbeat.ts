import type { RunEvent } from '../types/events.js';

/** Options of {@link createHeartbeat}; the clock and the timer are seams for tests. */
export interface HeartbeatOptions {
  write: (text: string) => void;
  /** How long an agent at work may print nothing before a heartbeat line; default 10 s. */
  quietMs?: number;
  now?: () => number;
  /** Calls `tick` every `ms` until the returned function is called (default: an unref'd setInterval). */
  every?: (ms: number, tick: () => void) => () => void;
}

/** A heartbeat's view of one agent at work. */
interface Working {
  /** `turn 2`, or `final answer` for a presenter that had no turn of its own. */
  label: string;
  since: number;
  /** The last time anything was printed for the agent (a heartbeat included). */
  lastOutput: number;
}

export const HEARTBEAT_QUIET_MS = 10_000;

const defaultEvery = (ms: number, tick: () => void): (() => void) => {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
};

/**
 * For the plain view (`--no-display`, a pipe): a model that thinks for long prints nothing — a local
 * model's turn can take tens of seconds before its first full line. While an agent is at work and
 * nothing has been printed for it for `quietMs`, this prints `[a] thinking… (turn 2, 15 s)` — again
 * every `quietMs` while it stays quiet. It stops for an agent once its turn ends, and for the presenter
 * once the final answer starts streaming (a line inside the answer would corrupt it).
 */
export function createHeartbeat(options: HeartbeatOptions) {
  const quietMs = options.quietMs ?? HEARTBEAT_QUIET_MS;
  const now = options.now ?? (() => performance.now());
  const every = options.every ?? defaultEvery;
  const working = new Map<string, Working>();
  let stopTimer: (() => void) | null = null;

  const tick = (): void => {
    const t = now();
    for (const [agentId, w] of working) {
      if (t - w.lastOutput < quietMs) continue;
      w.lastOutput = t;
      options.write(`[${agentId}] thinking… (${w.label}, ${Math.round((t - w.since) / 1000)} s)\n`);
    }
  };
  const start = (agentId: string, label: string): void => {
    const t = now();
    working.set(agentId, { label, since: t, lastOutput: t });
    // A check a few times per quiet interval: a line comes at most a fraction of it late.
    stopTimer ??= every(Math.max(1, Math.min(1000, quietMs / 4)), tick);
  };
  const stop = (agentId?: string): void => {
    if (agentId === undefined) working.clear();
    else working.delete(agentId);
    if (working.size === 0) {
      stopTimer?.();
      stopTimer = null;
    }
  };

  return {
    /** Follows the run's events. */
    handle(event: RunEvent): void {
      switch (event.type) {
        case 'agent.turn.started':
          return start(event.agentId, `turn ${event.turn}`);
        case 'presentation.started':
          if (!working.has(event.agentId)) start(event.agentId, 'final answer');
          return;
        case 'agent.text.delta':
          if (event.phase === 'presentation' && event.kind === 'text') stop(event.agentId);
          return;
        case 'agent.turn.finished':
        case 'agent.dropped':
        case 'presentation.finished':
          return stop(event.agentId);
        case 'coordination.finished':
        case 'run.finished':
          return stop();
        default:
          return;
      }
    },
    /** Something was printed for the agent: it is not quiet. */
    activity(agentId: string): void {
      const w = working.get(agentId);
      if (w) w.lastOutput = now();
    },
    /** Stops every heartbeat (the run's view is closing). */
    close(): void {
      stop();
    },
  };
}
