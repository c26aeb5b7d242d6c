import type { MassGenConfig } from '../config/index.js';
import type { PermissionRuleConfig } from '../config/permission-schema.js';

/**
 * What a run asks of the permission engine, read from the config alone, so a run without rules decides
 * this without loading the engine (src/app/tool-permissions.ts loads only when there is something to
 * decide).
 */

/** Whether the config has any rule at all (team-wide or for some agent). */
export function hasPermissionRules(config: MassGenConfig): boolean {
  return config.permissions.length > 0 || config.agents.some((a) => (a.permissions?.length ?? 0) > 0);
}

/** Whether some tool calls may wait for a person: `auto_approve: false`, or an `ask` rule. */
export function holdsToolCalls(config: MassGenConfig): boolean {
  const asks = (rules: readonly PermissionRuleConfig[] | undefined) =>
    (rules ?? []).some((r) => r.ask !== undefined);
  // Tolerant of partial configs (views are tested with stubs).
  return (
    !config.orchestrator.auto_approve ||
    asks(config.permissions) ||
    (config.agents ?? []).some((a) => asks(a.permissions))
  );
}
