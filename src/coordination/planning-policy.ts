import type { PlanningDecision } from '../types/events.js';

/**
 * Planning mode's answer to "may this tool run during coordination?", per agent and tool. Tools it
 * has never seen (a server that came back later) are deferred: when in doubt, nothing irreversible
 * happens before the team has agreed.
 */
export class PlanningPolicy {
  private readonly allowed = new Set<string>();
  private readonly deferred = new Map<string, string[]>();

  constructor(readonly decisions: readonly PlanningDecision[]) {
    for (const d of decisions) {
      if (d.allowed) this.allowed.add(`${d.agentId}\u0000${d.toolName}`);
      else this.deferred.set(d.agentId, [...(this.deferred.get(d.agentId) ?? []), d.toolName]);
    }
  }

  mayRun(agentId: string, toolName: string): boolean {
    return this.allowed.has(`${agentId}\u0000${toolName}`);
  }

  /** The tools whose calls this agent's coordination turns only record. */
  deferredFor(agentId: string): readonly string[] {
    return this.deferred.get(agentId) ?? [];
  }
}
