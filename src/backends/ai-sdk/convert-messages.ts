import type { AssistantModelMessage, ModelMessage, ToolModelMessage } from 'ai';
import type { LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { ChatMessage, ToolCall } from '../../types/messages.js';

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
  for (const call of calls) parts.push(toolCallPart(call));
  return { role: 'assistant', content: parts };
}

function toToolMessage(message: Extract<ChatMessage, { role: 'tool' }>): ToolModelMessage {
  return { role: 'tool', content: [toolResultPart(message)] };
}

/** A tool call as both message forms carry it (the SDK's and the provider-level prompt's). */
function toolCallPart(call: ToolCall) {
  return {
    type: 'tool-call' as const,
    toolCallId: call.id,
    toolName: call.name,
    // `input` must be a JSON value; a call without arguments means "no arguments".
    input: call.arguments === undefined ? {} : call.arguments,
  };
}

/** A tool result as both message forms carry it: `text`, or `error-text` for a failed call. */
function toolResultPart(message: Extract<ChatMessage, { role: 'tool' }>) {
  return {
    type: 'tool-result' as const,
    toolCallId: message.toolCallId,
    toolName: message.toolName,
    output:
      message.isError === true
        ? { type: 'error-text' as const, value: message.content }
        : { type: 'text' as const, value: message.content },
  };
}

/**
 * Our history as the provider-level prompt a model's `doStream` takes — what `streamText` would build
 * from {@link toModelMessages}' output, for the message shapes massgen produces (text, tool calls with
 * parsed arguments, text or error tool results). Empty text parts are left out, as the SDK does.
 */
export function toLanguageModelPrompt(messages: readonly ChatMessage[]): LanguageModelV3Prompt {
  return messages.map((message): LanguageModelV3Message => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        return { role: 'user', content: textParts(message.content) };
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0)
          return { role: 'assistant', content: [{ type: 'text', text: message.content }] };
        return { role: 'assistant', content: [...textParts(message.content), ...calls.map(toolCallPart)] };
      }
      case 'tool':
        return { role: 'tool', content: [toolResultPart(message)] };
    }
  });
}

function textParts(text: string): { type: 'text'; text: string }[] {
  return text === '' ? [] : [{ type: 'text', text }];
}
