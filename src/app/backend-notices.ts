import { findBackendFactory } from '../backends/registry.js';
import type { MassGenConfig } from '../config/index.js';
import type { RunWarning } from '../types/events.js';

/**
 * What backends say at the start of every run that uses them (`BackendFactory.notice`), once per backend
 * type with the ids of its agents: the scripted `demo` team says that no model answers.
 */
export function backendNotices(config: MassGenConfig): RunWarning[] {
  const agentsByType = new Map<string, string[]>();
  for (const agent of config.agents)
    agentsByType.set(agent.backend.type, [...(agentsByType.get(agent.backend.type) ?? []), agent.id]);
  return [...agentsByType].flatMap(([type, agents]) => {
    const notice = findBackendFactory(type)?.notice;
    return notice ? [{ code: notice.code, message: notice.message(agents) }] : [];
  });
}
