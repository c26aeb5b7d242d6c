import type { ToolDefinition } from '../types/messages.js';
import type { Access, CheckPath } from './permissions/index.js';
import type { ToolProvider } from './tool-provider.js';

/** Argument names that carry paths in MCP filesystem-style servers (server-filesystem among them). */
const PATH_KEYS = new Set([
  'path',
  'paths',
  'source',
  'destination',
  'file',
  'filename',
  'directory',
  'dir',
  'target',
]);

function pathsIn(args: Record<string, unknown>): string[] {
  return Object.entries(args).flatMap(([key, value]) => {
    if (!PATH_KEYS.has(key)) return [];
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
  return {
    name: provider.name,
    start: (context) => provider.start(context),
    tools: () => provider.tools(),
    close: () => provider.close(),
    async call(name, args, context) {
      const access: Access = definition(name)?.annotations?.readOnly === true ? 'read' : 'write';
      for (const requested of pathsIn(args)) {
        const decision = await checkPath(requested, access, context.phase);
        if (!decision.allowed) return { content: decision.reason, isError: true };
      }
      return provider.call(name, args, context);
    },
  };
}
