import type { LlamaCompletionResponse } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { parseCutToolCall } from './llama-language-model.js';

const response = (text: string, stopReason: string) =>
  ({ response: text, metadata: { stopReason } }) as unknown as LlamaCompletionResponse;

describe('parseCutToolCall', () => {
  it('keeps a call cut off by the token budget inside a string, closed where it was cut', async () => {
    const cut = '{"tool": "vote", "arguments": {"agent_id": "agent1", "reason": "it is the most compl';
    expect(await parseCutToolCall(response(cut, 'maxTokens'), ['vote', 'new_answer'])).toEqual({
      toolName: 'vote',
      input: { agent_id: 'agent1', reason: 'it is the most compl' },
    });
  });

  it('does not repair output that ended for another reason, or that names no known tool', async () => {
    const cut = '{"tool": "vote", "arguments": {"agent_id": "agent1", "reason": "it is';
    expect(await parseCutToolCall(response(cut, 'eogToken'), ['vote'])).toBe(
      'the tool call is not complete JSON',
    );
    expect(await parseCutToolCall(response('{"tool": "vo', 'maxTokens'), ['vote'])).toMatch(
      /unknown tool "vo"/,
    );
  });
});
