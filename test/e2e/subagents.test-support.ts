/** Reading the fake server's requests in the subagent e2e tests (subagents*.test.ts). */
import type { FakeChatRequestBody } from '../../src/testing/fake-openai-server.js';

export const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? JSON.stringify(content) : '';

/** The request's user messages: a subagent's question is its task. */
export function userText(body: FakeChatRequestBody): string {
  return (body.messages ?? [])
    .filter((m) => m.role === 'user')
    .map((m) => textOf(m.content))
    .join('\n');
}

/** The tool calls the request's last assistant message made, with their results, when they end it. */
export function lastToolRound(body: FakeChatRequestBody): { names: string[]; results: string[] } | null {
  const messages = body.messages ?? [];
  let i = messages.length - 1;
  const results: string[] = [];
  while (i >= 0 && messages[i]!.role === 'tool') results.unshift(textOf(messages[i--]!.content));
  if (results.length === 0 || i < 0) return null;
  const calls = (messages[i]!.tool_calls ?? []) as { function: { name: string } }[];
  return { names: calls.map((c) => c.function.name), results };
}

/** A gate a handler awaits, opened once. */
export function gate(): { promise: Promise<void>; open(): void; opened: boolean } {
  let open!: () => void;
  const g = { promise: new Promise<void>((resolve) => (open = resolve)), open: () => {}, opened: false };
  g.open = () => {
    g.opened = true;
    open();
  };
  return g;
}
