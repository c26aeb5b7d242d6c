import type { Backend, ModelRequest, ModelStreamPart } from '../types/backend.js';
import type { ChatMessage, ToolCall, ToolDefinition } from '../types/messages.js';

/**
 * Tool calling through the text itself, for a model that cannot take function declarations in a
 * request (Gemini 2.x with Google Search or code execution, as MassGen does it): the tools are described
 * in the system instructions, the model ends its reply with one fenced JSON object
 * `{"tool": …, "arguments": …}`, and the reply is turned back into a tool call. Earlier calls and their
 * results go back to the model as text in the same shape. Text streams as usual up to the JSON, which
 * is held back and never shown as text.
 */

const FENCE = '```';

function instructions(tools: readonly ToolDefinition[], required: boolean): string {
  const list = tools
    .map((t) => `- ${t.name}: ${t.description}\n  arguments (JSON Schema): ${JSON.stringify(t.parameters)}`)
    .join('\n');
  return [
    'TOOLS',
    'Function calling is not available in this conversation, but the tools below are: to use one, end your',
    'reply with exactly one JSON object in a ```json fenced block, {"tool": "<name>", "arguments": {…}}, after',
    `any text. One tool per reply.${required ? ' Every reply must end with a tool call.' : ''} Your built-in`,
    'tools (search, code execution) work as usual.',
    '',
    'Available tools:',
    list,
  ].join('\n');
}

const asJsonBlock = (call: ToolCall) =>
  `${FENCE}json\n${JSON.stringify({ tool: call.name, arguments: call.arguments })}\n${FENCE}`;

/** The conversation with tool calls and results written out as text, and the tools in the system message. */
export function promptedMessages(request: ModelRequest): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of request.messages) {
    if (message.role === 'assistant' && message.toolCalls?.length) {
      const calls = message.toolCalls.map(asJsonBlock).join('\n');
      out.push({ role: 'assistant', content: message.content ? `${message.content}\n${calls}` : calls });
    } else if (message.role === 'tool') {
      const text = `Result of ${message.toolName}${message.isError ? ' (error)' : ''}:\n${message.content}`;
      const media = message.media ?? [];
      const last = out.at(-1);
      // Several results of one step read as one user turn, with the media they returned.
      if (last?.role === 'user' && last.content.startsWith('Result of ')) {
        last.content += `\n\n${text}`;
        if (media.length > 0) last.media = [...(last.media ?? []), ...media];
      } else out.push({ role: 'user', content: text, ...(media.length > 0 ? { media } : {}) });
    } else out.push({ ...message });
  }
  const tools = instructions(request.tools, request.toolChoice === 'required');
  const system = out.findIndex((m) => m.role === 'system');
  if (system === -1) out.unshift({ role: 'system', content: tools });
  else out[system] = { role: 'system', content: `${out[system]?.content ?? ''}\n\n${tools}` };
  return out;
}

/** Where a tool-call block may begin: text from here on is held back until the reply is complete. */
function holdFrom(text: string): number {
  const fence = text.indexOf(FENCE);
  const brace = text.search(/(^|\n)\s*\{\s*"tool"/);
  const candidates = [fence, brace].filter((i) => i !== -1);
  // A partial fence or brace at the very end may still grow into one.
  const tail = /`{1,2}$|\{\s*$|\{\s*"?t?o?o?l?$/.exec(text);
  if (tail) candidates.push(tail.index);
  let safe = candidates.length === 0 ? text.length : Math.min(...candidates);
  // Trailing white space waits too: it may be all that stands before a tool call.
  while (safe > 0 && /\s/.test(text[safe - 1] ?? '')) safe--;
  return safe;
}

/** The tool calls a finished reply ends with, and the text without them. */
export function parsePromptedCalls(
  text: string,
  offered: ReadonlySet<string>,
): { text: string; calls: ToolCall[] } {
  const calls: ToolCall[] = [];
  let rest = text;
  const blocks = [...text.matchAll(/```(?:json)?\s*\n?([\s\S]*?)```/g)];
  const candidates: { raw: string; span: [number, number] }[] = blocks.map((m) => ({
    raw: m[1] ?? '',
    span: [m.index, m.index + m[0].length],
  }));
  if (candidates.length === 0) {
    const start = text.search(/\{\s*"tool"/);
    if (start !== -1) candidates.push({ raw: text.slice(start), span: [start, text.length] });
  }
  for (const { raw, span } of candidates.reverse()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.trim());
    } catch {
      continue;
    }
    const { tool, arguments: args } = (parsed ?? {}) as { tool?: unknown; arguments?: unknown };
    if (typeof tool !== 'string' || !offered.has(tool)) continue;
    calls.unshift({
      id: `prompted_${Math.random().toString(36).slice(2, 10)}`,
      name: tool,
      arguments: args ?? {},
    });
    rest = rest.slice(0, span[0]) + rest.slice(span[1]);
  }
  return { text: rest.trimEnd(), calls };
}

/** Wraps `inner` (which gets no function tools) so that tools still work, through the text. */
export function withPromptedToolCalls(inner: Backend): Backend {
  return {
    type: inner.type,
    model: inner.model,
    async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
      if (request.tools.length === 0) {
        yield* inner.stream(request);
        return;
      }
      const offered = new Set(request.tools.map((t) => t.name));
      let text = '';
      let shown = 0;
      for await (const part of inner.stream({ ...request, tools: [], messages: promptedMessages(request) })) {
        if (part.type === 'text-delta') {
          text += part.text;
          const safe = holdFrom(text);
          if (safe > shown) {
            yield { type: 'text-delta', text: text.slice(shown, safe) };
            shown = safe;
          }
        } else if (part.type === 'finish') {
          const { text: visible, calls } = parsePromptedCalls(text, offered);
          if (visible.length > shown) yield { type: 'text-delta', text: visible.slice(shown) };
          for (const call of calls) yield { type: 'tool-call', call };
          yield calls.length > 0 ? { ...part, finishReason: 'tool-calls' } : part;
        } else yield part;
      }
    },
  };
}
