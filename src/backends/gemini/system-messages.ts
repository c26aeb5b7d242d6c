import type { ChatMessage } from '../../types/messages.js';

/**
 * Gemini takes system text only as `systemInstruction`, built from the system messages that open the
 * conversation; the AI SDK rejects any later one ("system messages are only supported at the beginning
 * of the conversation"). Later system messages become user messages, so a mid-run instruction still
 * reaches the model instead of failing the call.
 */
export function leadingSystemMessagesOnly(messages: readonly ChatMessage[]): readonly ChatMessage[] {
  const firstOther = messages.findIndex((m) => m.role !== 'system');
  if (firstOther === -1 || !messages.slice(firstOther).some((m) => m.role === 'system')) return messages;
  return messages.map((message, i) =>
    i > firstOther && message.role === 'system' ? { role: 'user', content: message.content } : message,
  );
}
