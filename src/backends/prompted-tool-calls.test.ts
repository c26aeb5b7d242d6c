import { describe, expect, it } from 'vitest';
import type { Backend, ModelRequest, ModelStreamPart } from '../types/backend.js';
import { emptyUsage } from '../types/usage.js';
import { sampleMedia } from '../testing/media-fixtures.js';
import { parsePromptedCalls, promptedMessages, withPromptedToolCalls } from './prompted-tool-calls.js';

/** A backend that streams `text` in small pieces and records what it was asked. */
function replying(text: string): Backend & { seen: ModelRequest[] } {
  const seen: ModelRequest[] = [];
  return {
    type: 'test',
    model: 'test',
    seen,
    async *stream(request) {
      seen.push(request);
      for (let i = 0; i < text.length; i += 3) yield { type: 'text-delta', text: text.slice(i, i + 3) };
      yield { type: 'finish', finishReason: 'stop', usage: emptyUsage() };
    },
  };
}

const tools = [
  {
    name: 'vote',
    description: 'Vote.',
    parameters: { type: 'object', properties: { agent_id: { type: 'string' } } },
  },
];
const request = (): ModelRequest => ({
  messages: [{ role: 'user', content: 'Q?' }],
  tools,
  signal: new AbortController().signal,
});

async function run(text: string) {
  const inner = replying(text);
  const parts: ModelStreamPart[] = [];
  for await (const part of withPromptedToolCalls(inner).stream(request())) parts.push(part);
  const shown = parts.flatMap((p) => (p.type === 'text-delta' ? [p.text] : [])).join('');
  return { inner, parts, shown, calls: parts.flatMap((p) => (p.type === 'tool-call' ? [p.call] : [])) };
}

describe('tool calls through the text', () => {
  it('turns the closing JSON block into a tool call and never shows it as text', async () => {
    const { inner, shown, calls, parts } = await run(
      'Agent 1 is right.\n```json\n{"tool": "vote", "arguments": {"agent_id": "agent1"}}\n```\n',
    );
    expect(shown).toBe('Agent 1 is right.');
    expect(calls).toMatchObject([{ name: 'vote', arguments: { agent_id: 'agent1' } }]);
    expect(parts.at(-1)).toMatchObject({ finishReason: 'tool-calls' });
    expect(inner.seen[0]?.tools).toEqual([]);
    expect(inner.seen[0]?.messages[0]).toMatchObject({ role: 'system' });
  });

  it('leaves other code blocks, unknown tools and broken JSON in the text', async () => {
    const code = 'Use this:\n```js\nconsole.log(1)\n```\nDone.';
    expect((await run(code)).shown).toBe(code);
    expect((await run(code)).calls).toEqual([]);
    const unknown = '```json\n{"tool": "rm_rf", "arguments": {}}\n```';
    expect((await run(unknown)).shown).toBe(unknown);
    expect(
      parsePromptedCalls('```json\n{"tool": "vote", "arguments": \n```', new Set(['vote'])).calls,
    ).toEqual([]);
  });

  it('understands a bare JSON object at the end too', () => {
    const parsed = parsePromptedCalls(
      'Fine.\n{"tool": "vote", "arguments": {"agent_id": "agent2"}}',
      new Set(['vote']),
    );
    expect(parsed).toMatchObject({
      text: 'Fine.',
      calls: [{ name: 'vote', arguments: { agent_id: 'agent2' } }],
    });
  });

  it('passes a request without tools straight through', async () => {
    const inner = replying('hi');
    for await (const _ of withPromptedToolCalls(inner).stream({ ...request(), tools: [] })) {
      // drain
    }
    expect(inner.seen[0]?.messages).toEqual([{ role: 'user', content: 'Q?' }]);
  });

  it('keeps the media tool results returned on the user turn that carries them as text', () => {
    const { png, jpeg } = sampleMedia();
    const messages = promptedMessages({
      ...request(),
      messages: [
        { role: 'user', content: 'Q?' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'lookup', arguments: {} }] },
        { role: 'tool', toolCallId: 'a', toolName: 'lookup', content: 'one', media: [png] },
        { role: 'tool', toolCallId: 'b', toolName: 'lookup', content: 'two', media: [jpeg] },
      ],
    });
    expect(messages.at(-1)).toEqual({
      role: 'user',
      content: 'Result of lookup:\none\n\nResult of lookup:\ntwo',
      media: [png, jpeg],
    });
  });
});
