import type { ChatMessage, ToolCall, ToolDefinition } from '../types/messages.js';
import { emptyUsage } from '../types/usage.js';
import { fitRequest } from './context-window.js';
import type { RunContext } from './run-context.js';

/**
 * One model call outside the agent loop (a judge's pick, the final check, a paraphrase): no retries,
 * no tools run; its usage counts for the agent. Returns the text and the first call of a wanted tool.
 */
export async function oneOffCall(
  ctx: RunContext,
  agentIndex: number,
  request: { messages: ChatMessage[]; tools?: ToolDefinition[] },
  signal: AbortSignal,
): Promise<{ text: string; call: ToolCall | undefined }> {
  const agent = ctx.state.agent(agentIndex);
  const wanted = new Set((request.tools ?? []).map((t) => t.name));
  let text = '';
  let call: ToolCall | undefined;
  let usage = emptyUsage();
  // Never sent when it cannot fit the context window: the callers treat that as a failed call.
  const messages = fitRequest(ctx, agentIndex, request.messages, request.tools ?? [], false);
  for await (const part of agent.spec.backend.stream({
    messages,
    tools: request.tools ?? [],
    ...(wanted.size > 0 ? { toolChoice: 'required' as const } : {}),
    signal,
  })) {
    if (part.type === 'text-delta') text += part.text;
    else if (part.type === 'tool-call' && wanted.has(part.call.name)) call ??= part.call;
    else if (part.type === 'finish') usage = part.usage;
  }
  ctx.addUsage(agent.spec.id, usage);
  return { text: text.trim(), call };
}
