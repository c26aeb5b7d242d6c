import type { ChatMessage, ToolCall } from '../types/messages.js';
import type { Phase } from '../types/events.js';
import type { ToolRegistry } from '../types/tool.js';
import { describeError } from '../types/errors.js';
import type { RunContext } from './run-context.js';
import { enforcement } from './prompts.js';

/**
 * Executes ordinary (non-workflow) tool calls through the agent's registry, one after another, and
 * returns the tool messages to append. Tool failures become tool-error results, never exceptions.
 */
export async function executeToolCalls(
  ctx: RunContext,
  agentId: string,
  phase: Phase,
  registry: ToolRegistry,
  offered: ReadonlySet<string>,
  calls: readonly ToolCall[],
  signal: AbortSignal,
): Promise<ChatMessage[]> {
  const messages: ChatMessage[] = [];
  for (const call of calls) {
    if (signal.aborted) throw signal.reason;
    ctx.emit({
      type: 'tool.call.started',
      agentId,
      phase,
      callId: call.id,
      toolName: call.name,
      arguments: call.arguments,
    });
    const started = ctx.clock.now();
    let content: string;
    let isError = false;
    let deferred = false;
    if (!offered.has(call.name)) {
      content = enforcement.unknownTool(call.name);
      isError = true;
    } else if (phase === 'coordination' && ctx.planning && !ctx.planning.mayRun(agentId, call.name)) {
      content = enforcement.deferredCall(call.name);
      deferred = true;
    } else {
      const denial = await askApproval(ctx, agentId, phase, call, signal);
      if (denial !== null) {
        content = denial;
        isError = true;
      } else {
        try {
          const result = await registry.execute(call, { agentId, phase, signal });
          content = result.content;
          isError = result.isError ?? false;
        } catch (error) {
          if (signal.aborted) throw signal.reason;
          content = `Tool ${call.name} failed: ${describeError(error)}`;
          isError = true;
        }
      }
    }
    // A tool may echo a secret (an env dump, a config file): the model must never read it.
    content = ctx.scrub(content);
    ctx.emit({
      type: 'tool.call.finished',
      agentId,
      phase,
      callId: call.id,
      toolName: call.name,
      result: content,
      isError,
      durationMs: Math.max(0, ctx.clock.now() - started),
      ...(deferred ? { deferred } : {}),
    });
    messages.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content, isError });
  }
  return messages;
}

/**
 * Holds the call for approval when an approver is configured. Returns null when the call may run,
 * else the tool-error text for the model.
 */
async function askApproval(
  ctx: RunContext,
  agentId: string,
  phase: Phase,
  call: ToolCall,
  signal: AbortSignal,
): Promise<string | null> {
  if (!ctx.approver) return null;
  const request = { agentId, phase, callId: call.id, toolName: call.name, arguments: call.arguments };
  ctx.emit({ type: 'tool.approval.requested', ...request });
  const decision = await ctx.approver(request, signal);
  if (signal.aborted) throw signal.reason;
  ctx.emit({
    type: 'tool.approval.resolved',
    agentId,
    callId: call.id,
    toolName: call.name,
    approved: decision.approved,
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
  });
  return decision.approved ? null : enforcement.deniedCall(call.name, decision.reason);
}

/** A registry with no tools: the default until tools are configured. */
export const noTools: ToolRegistry = {
  list: () => [],
  execute: async (call) => ({ content: enforcement.unknownTool(call.name), isError: true }),
};
