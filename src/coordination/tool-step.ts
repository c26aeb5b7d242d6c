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
    let isError: boolean;
    if (!offered.has(call.name)) {
      content = enforcement.unknownTool(call.name);
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
    ctx.emit({
      type: 'tool.call.finished',
      agentId,
      phase,
      callId: call.id,
      toolName: call.name,
      result: content,
      isError,
      durationMs: Math.max(0, ctx.clock.now() - started),
    });
    messages.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content, isError });
  }
  return messages;
}

/** A registry with no tools: the default until tools are configured. */
export const noTools: ToolRegistry = {
  list: () => [],
  execute: async (call) => ({ content: enforcement.unknownTool(call.name), isError: true }),
};
