import type { ToolDefinition } from '../types/messages.js';
import type { ToolContext } from '../types/tool.js';
import { PATH_ARGUMENT_KEYS } from './permissions/call-facts.js';
import type { Access, CheckPath } from './permissions/path-policy.js';
import type { ToolProvider } from './tool-provider.js';

function pathsIn(args: Record<string, unknown>): string[] {
  return Object.entries(args).flatMap(([key, value]) => {
    if (!PATH_ARGUMENT_KEYS.has(key)) return [];
    if (typeof value === 'string') return [value];
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  });
}

/**
 * Puts a provider's tools (MCP servers) under the agent's path policy: every path-like argument is
 * checked before the call — for reading when the tool declares itself read-only, else for writing —
 * and a refusal goes back to the model as a tool error with the reason.
 */
export function withPathGuard(provider: ToolProvider, checkPath: CheckPath): ToolProvider {
  const definition = (name: string): ToolDefinition | undefined =>
    provider.tools().find((t) => t.name === name);
  const checkPaths = async (
    name: string,
    args: Record<string, unknown>,
    phase: ToolContext['phase'],
    precheck: boolean,
  ): Promise<string | null> => {
    const access: Access = definition(name)?.annotations?.readOnly === true ? 'read' : 'write';
    for (const requested of pathsIn(args)) {
      const decision = await checkPath(requested, access, phase);
      // Before the rules, a permission rule's denial is left to them (they name the rule in the ledger).
      if (!decision.allowed && !(precheck && decision.byRule === true)) return decision.reason;
    }
    return null;
  };
  return {
    name: provider.name,
    start: (context) => provider.start(context),
    tools: () => provider.tools(),
    close: () => provider.close(),
    async precheck(name, args, context) {
      return (
        (await checkPaths(name, args, context.phase, true)) ??
        (await provider.precheck?.(name, args, context)) ??
        null
      );
    },
    async call(name, args, context) {
      const refusal = await checkPaths(name, args, context.phase, false);
      if (refusal !== null) return { content: refusal, isError: true };
      return provider.call(name, args, context);
    },
  };
}
