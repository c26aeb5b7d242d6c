import type { RunEvent } from '../types/events.js';
import type { SubagentState } from '../types/subagent-events.js';
import type { ContextFile } from './context-files.js';
import type { SubagentType } from './subagent-types.js';

// What the subagent manager and the launchers of child runs (child-run.ts) share.

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
