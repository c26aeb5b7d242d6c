import type { RunEventInput, RunWarning } from '../types/events.js';
import type { MediaPart } from '../types/media.js';
import type { StopHook } from '../types/stop-hook.js';
import type { ToolApprover, ToolHooks, ToolPolicy } from '../types/tool.js';
import type { WorkspaceHooks } from '../types/workspace.js';
import type { SecretScrubber } from '../util/secret-scrubber.js';
import type { AgentSpec, Clock, CoordinationSettings, HistoryTurn } from './settings.js';
import type { StepRequest } from './step-action.js';

/**
 * Whether an event shows a provider answered: a finished step, model output that streamed, or an
 * attempt that failed after the provider responded. A run where none did could not start (the
 * network or a base_url); one where any did failed, whatever later retries met.
 */
export const reachesProvider = (input: RunEventInput): boolean =>
  input.type === 'agent.step.finished' ||
  input.type === 'agent.text.delta' ||
  (input.type === 'agent.step.retrying' && input.responded === true);

/** What one run is made of: the orchestrator's agents and settings, and this call's question and options. */
export interface CoordinationRunOptions {
  runId: string;
  question: string;
  history: readonly HistoryTurn[];
  settings: CoordinationSettings;
  clock: Clock;
  agents: readonly AgentSpec[];
  /** The caller's signal: aborting it cancels the run. */
  signal?: AbortSignal | undefined;
  approver?: ToolApprover;
  /** The permission rules, asked before the approver (docs/permissions.md). */
  toolPolicy?: ToolPolicy;
  /** The user's hooks around tool calls (docs/hooks.md). */
  toolHooks?: ToolHooks;
  /** The user's `Stop` hooks (docs/hooks.md): asked each time the run would end; a block goes on. */
  stopHook?: StopHook;
  workspaces?: WorkspaceHooks;
  warnings?: readonly RunWarning[];
  scrubber?: SecretScrubber;
  /** Step mode: one agent's one action against a recorded session (see step-action.ts). */
  step?: StepRequest;
  /** Media the user attached to the question. */
  attachments?: readonly MediaPart[];
}
