import { ConfigValidationError, type ConfigDiagnostic } from './diagnostics.js';
import { parseConfig } from './parse-config.js';

/** Test helpers shared by the config tests (excluded from the build). */

export const backend = { type: 'chatcompletion', model: 'gpt-4o-mini' };

/** `orchestrator.coordination` of a config that sets none of it: the defaults, pinned in one place. */
export const COORDINATION_DEFAULTS = {
  enable_planning_mode: false,
  planning_mode_allowed_tools: [],
  max_orchestration_restarts: 0,
  enable_memory_filesystem_mode: false,
  enable_subagents: false,
  subagent_default_timeout: 300,
  subagent_min_timeout: 60,
  subagent_max_timeout: 1800,
  subagent_max_concurrent: 3,
  max_subagent_depth: 1,
  enable_agent_task_planning: false,
  task_planning_filesystem_mode: false,
  max_tasks_per_plan: 50,
  broadcast: false,
  broadcast_timeout: 300,
  max_broadcasts_per_agent: 10,
};

export function diagnosticsOf(raw: unknown, env: Record<string, string> = {}): ConfigDiagnostic[] {
  try {
    parseConfig(raw, { env });
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.diagnostics;
    throw error;
  }
  throw new Error('expected the config to be rejected');
}

export function messagesOf(raw: unknown, env: Record<string, string> = {}): string[] {
  return diagnosticsOf(raw, env).map((d) => (d.hint === undefined ? d.message : `${d.message} — ${d.hint}`));
}
