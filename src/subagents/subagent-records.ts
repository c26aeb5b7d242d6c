import type { SubagentState } from '../types/subagent-events.js';
import type { ToolEventInput } from '../types/tool.js';
import type { SubagentCheckpoint } from './checkpoint.js';
import type { SubagentTask } from './spawn-arguments.js';

// A subagent's checkpoint as it starts, and the events told about it (the manager's records).

/** The checkpoint of a subagent that starts now. */
export function newCheckpoint(
  id: string,
  agentId: string,
  task: SubagentTask,
  settings: Pick<SubagentCheckpoint, 'subagentType' | 'timeoutSeconds' | 'background' | 'startedAt'>,
): SubagentCheckpoint {
  return {
    version: 1,
    id,
    agentId,
    task: task.task,
    contextFiles: task.context_files ?? [],
    ...settings,
    state: 'running',
    answer: null,
    costUsd: 0,
    finishedAt: null,
    logDir: null,
    jobId: null,
    error: null,
  };
}

/** `subagent.started`; `resumedFrom` names the previous turn's log folder it was taken over from. */
export function startedEvent(c: SubagentCheckpoint, resumedFrom: string | null): ToolEventInput {
  return {
    type: 'subagent.started',
    agentId: c.agentId,
    subagentId: c.id,
    task: c.task,
    subagentType: c.subagentType,
    timeoutSeconds: c.timeoutSeconds,
    background: c.background,
    logDir: c.logDir,
    ...(resumedFrom === null ? {} : { resumedFrom }),
  };
}

/** `subagent.finished` from the checkpoint as it ended. */
export function finishedEvent(c: SubagentCheckpoint, durationMs: number): ToolEventInput {
  return {
    type: 'subagent.finished',
    agentId: c.agentId,
    subagentId: c.id,
    state: c.state as Exclude<SubagentState, 'running'>,
    answer: c.answer,
    costUsd: c.costUsd,
    durationMs: Number.isFinite(durationMs) ? Math.max(0, durationMs) : 0,
    ...(c.error ? { error: c.error } : {}),
  };
}
