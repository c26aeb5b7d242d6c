// What the subagent manager and the launchers of child runs (child-run.ts, the queue's) share.
export type {
  ChildHandle,
  ChildLaunch,
  ChildLauncher,
  ChildOutcome,
  SubagentTypeInfo,
} from '../types/subagent-launch.js';

/** The run's subagent limits (`orchestrator.coordination.*`), in seconds. */
export interface SubagentLimits {
  defaultTimeout: number;
  minTimeout: number;
  maxTimeout: number;
  maxConcurrent: number;
  /** Levels of subagents still allowed below this run (0: this run's agents may not spawn). */
  maxDepth: number;
}
