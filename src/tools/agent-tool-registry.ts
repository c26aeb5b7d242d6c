import { describeError } from '../types/errors.js';
import type { ToolCall, ToolDefinition } from '../types/messages.js';
import type { ToolContext, ToolLifecycleContext, ToolRegistry, ToolResult } from '../types/tool.js';
import { matchesAnyToolPattern } from '../util/tool-patterns.js';
import { jsonSchemaViolations } from './json-schema-arguments.js';
import type { ToolProvider } from './tool-provider.js';

/** Options of {@link createAgentToolRegistry}. */
export interface AgentToolRegistryOptions {
  providers: readonly ToolProvider[];
  /** Only matching tools are offered (exact names or `*` patterns). Omitted: all. */
  allowedTools?: readonly string[];
  /** Matching tools are never offered. */
  excludeTools?: readonly string[];
  /** A call running longer is abandoned and answered with a tool error. */
  timeoutMs: number;
  /** Longer results are cut, with a note saying how much was dropped. */
  maxResultChars: number;
  /**
   * Results longer than `chars` go to `handle` first (src/compression/tool-result-file.ts writes them to
   * a file in the workspace and answers with a note); a null answer leaves them to the cut.
   */
  oversized?: { chars: number; handle: (call: ToolCall, content: string) => Promise<string | null> };
}

class ToolTimeout extends Error {}

/** Cuts `content` to `max` characters and says so, so the model knows it did not see everything. */
export function truncateToolResult(content: string, max: number): string {
  if (content.length <= max) return content;
  return `${content.slice(0, max)}\n\n[truncated: showing the first ${max} of ${content.length} characters]`;
}

/**
 * One agent's tools: the union of its providers (MCP servers, custom tools), filtered by
 * `allowed_tools`/`exclude_tools`. Everything a tool call needs beyond the provider's own protocol
 * happens here, once: JSON-argument checks against the schema, the timeout, truncation, and turning
 * failures into tool-error results the model can react to.
 */
export function createAgentToolRegistry(options: AgentToolRegistryOptions): ToolRegistry {
  const { providers, allowedTools, excludeTools = [], timeoutMs, maxResultChars, oversized } = options;
  const offered = (name: string) =>
    (allowedTools === undefined || matchesAnyToolPattern(name, allowedTools)) &&
    !matchesAnyToolPattern(name, excludeTools);

  /** The tools on offer now, each with its provider; on a name clash the earlier provider wins. */
  const current = (): Map<string, { tool: ToolDefinition; provider: ToolProvider }> => {
    const byName = new Map<string, { tool: ToolDefinition; provider: ToolProvider }>();
    for (const provider of providers) {
      for (const tool of provider.tools()) {
        if (offered(tool.name) && !byName.has(tool.name)) byName.set(tool.name, { tool, provider });
      }
    }
    return byName;
  };

  const run = async (call: ToolCall, context: ToolContext): Promise<ToolResult> => {
    const entry = current().get(call.name);
    if (!entry) {
      return { content: `Tool ${call.name} is not available right now.`, isError: true };
    }
    const args = call.arguments;
    if (typeof args === 'string') {
      return {
        content: `The arguments for ${call.name} were not valid JSON. Call the tool again with a JSON object.`,
        isError: true,
      };
    }
    const input = args === undefined || args === null ? {} : args;
    if (typeof input !== 'object' || Array.isArray(input)) {
      return { content: `The arguments for ${call.name} must be a JSON object.`, isError: true };
    }
    const violations = jsonSchemaViolations(entry.tool.parameters, input);
    if (violations.length > 0) {
      return {
        content: `Invalid arguments for ${call.name}: ${violations.join('; ')}. Fix the arguments and call the tool again.`,
        isError: true,
      };
    }

    const limitMs = Math.max(timeoutMs, entry.provider.minTimeoutMs?.(call.name) ?? 0);
    const timeout = new AbortController();
    const signal = AbortSignal.any([context.signal, timeout.signal]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Raced rather than trusted: a provider that ignores its signal must still not hold the turn.
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new ToolTimeout();
        timeout.abort(error);
        reject(error);
      }, limitMs);
    });
    try {
      const result = await Promise.race([
        entry.provider.call(call.name, input as Record<string, unknown>, { ...context, signal }),
        expired,
      ]);
      const content =
        oversized && result.content.length > oversized.chars
          ? ((await oversized.handle(call, result.content)) ?? result.content)
          : result.content;
      return {
        content: truncateToolResult(content, maxResultChars),
        isError: result.isError ?? false,
        // Media and provider cost pass through untouched: the core filters media per model and adds cost.
        ...(result.media && result.media.length > 0 ? { media: result.media } : {}),
        ...(result.costUsd !== undefined && result.costUsd > 0 ? { costUsd: result.costUsd } : {}),
        ...(result.peerCosts ? { peerCosts: result.peerCosts } : {}),
      };
    } catch (error) {
      if (context.signal.aborted) throw context.signal.reason;
      if (error instanceof ToolTimeout || timeout.signal.aborted) {
        return {
          content: `Tool ${call.name} did not finish within ${limitMs / 1000}s and was stopped (tool_timeout_seconds). Try a smaller request or another approach.`,
          isError: true,
        };
      }
      return {
        content: truncateToolResult(`Tool ${call.name} failed: ${describeError(error)}`, maxResultChars),
        isError: true,
      };
    } finally {
      clearTimeout(timer);
      expired.catch(() => undefined);
    }
  };

  const precheck = async (call: ToolCall, context: ToolContext): Promise<string | null> => {
    const entry = current().get(call.name);
    const args = call.arguments ?? {};
    // Calls that cannot run at all are answered by `execute` with its own message.
    if (!entry?.provider.precheck || typeof args !== 'object' || Array.isArray(args)) return null;
    if (jsonSchemaViolations(entry.tool.parameters, args).length > 0) return null;
    try {
      return await entry.provider.precheck(call.name, args as Record<string, unknown>, context);
    } catch {
      if (context.signal.aborted) throw context.signal.reason;
      return null;
    }
  };

  return {
    list: () => [...current().values()].map(({ tool }) => tool),
    execute: run,
    precheck,
    async start(context: ToolLifecycleContext) {
      await Promise.all(
        providers.map((provider) =>
          provider.start({
            signal: context.signal,
            report: (event) =>
              context.emit(
                event.type === 'mcp.server.ready'
                  ? { ...event, agentId: context.agentId, tools: event.tools.filter(offered) }
                  : { ...event, agentId: context.agentId },
              ),
            addCost: (dollars) => context.addCost?.(dollars),
          }),
        ),
      );
    },
    async close() {
      await Promise.allSettled(providers.map((provider) => provider.close()));
    },
  };
}
