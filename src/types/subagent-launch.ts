import type { RunEvent } from './events.js';
import type { SubagentState } from './subagent-events.js';

/**
 * How a subagent's run is started: in the parent's process (the default), or — when the parent runs
 * as a queue job — as a job of its own that any worker may take (`src/queue`). The subagent manager
 * and every launcher share these shapes; they live here so a run's options can carry a launcher.
 */

/** A subagent type as a launch needs it (`SUBAGENT.md`: its name, instructions and own backend). */
export interface SubagentTypeInfo {
  name: string;
  description: string;
  systemMessage: string;
  /** A backend of its own (validated like an agent's), or null: the usual team. */
  backend: Record<string, unknown> | null;
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
  /** The context files' bytes, read from the spawning agent's workspace. */
  files: readonly { name: string; data: Uint8Array }[];
  type: SubagentTypeInfo | null;
  timeoutSeconds: number;
  /** Its log folder's parent (`<parentLog>/subagents/<id>`), or null with logging off. */
  logRoot: string | null;
  signal: AbortSignal;
  /** Every event of the child run, in order. */
  onEvent(event: RunEvent): void;
}

/** A started child run. */
export interface ChildHandle {
  /**
   * Steering: the text reaches every agent of the child run at its next step. Null when the child runs
   * where it cannot be reached (a queue job on another worker).
   */
  steer: ((text: string) => boolean) | null;
  /** The queue job running it, when it runs as one. */
  jobId?: string;
  /** Settles when the child run has ended and its logs are closed; never rejects. */
  done: Promise<ChildOutcome>;
}

export type ChildLauncher = (launch: ChildLaunch) => Promise<ChildHandle>;
