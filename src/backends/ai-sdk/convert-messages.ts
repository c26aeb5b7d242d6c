import type { AssistantModelMessage, ModelMessage, ToolCallPart, ToolModelMessage } from 'ai';
import type { ChatMessage } from '../../types/messages.js';

/**
 * Translates our provider-neutral history into AI SDK messages.
 *
 * Assistant tool calls become `tool-call` parts whose `input` is our parsed `arguments` (or the raw string
 * the model sent when it did not parse, so the model later sees exactly what it produced); tool results
 * become `tool` messages with `text` or `error-text` output.
 */
export function toModelMessages(messages: readonly ChatMessage[]): ModelMessage[] {
  return messages.map(toModelMessage);
}

function toModelMessage(message: ChatMessage): ModelMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant':
      return toAssistantMessage(message);
    case 'tool':
      return toToolMessage(message);
  }
}

function toAssistantMessage(message: Extract<ChatMessage, { role: 'assistant' }>): AssistantModelMessage {
  const calls = message.toolCalls ?? [];
  if (calls.length === 0) return { role: 'assistant', content: message.content };
  const parts: AssistantModelMessage['content'] = [];
  if (message.content !== '') parts.push({ type: 'text', text: message.content });
  for (const call of calls) {
    const part: ToolCallPart = {
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.name,
      // The SDK validates `input` as a JSON value; a call without arguments means "no arguments".
      input: call.arguments === undefined ? {} : call.arguments,
    };
    parts.push(part);
  }
  return { role: 'assistant', content: parts };
}

function toToolMessage(message: Extract<ChatMessage, { role: 'tool' }>): ToolModelMessage {
  return {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: message.toolCallId,
        toolName: message.toolName,
        output:
          message.isError === true
            ? { type: 'error-text', value: message.content }
            : { type: 'text', value: message.content },
      },
    ],
  };
}
