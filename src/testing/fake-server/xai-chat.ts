import type { WireDialect } from './dialect.js';
import { openAIChatDialect, type FakeChatRequestBody } from './openai-chat.js';
import { chunksOf, nextResponseIndex, SseWriter, toolCallsOf } from './script.js';

/**
 * xAI's Chat Completions stream: OpenAI's chunk format, except that each tool call arrives whole in
 * one chunk (id, name and complete arguments) — the SDK's xAI parser rejects OpenAI-style fragments.
 */
export const xaiChatDialect: WireDialect = {
  ...openAIChatDialect,
  name: 'xai-chat',
  async writeStream(res, raw, reply) {
    const body = raw as FakeChatRequestBody;
    const index = nextResponseIndex();
    const envelope = {
      id: `xai-fake-${index}`,
      object: 'chat.completion.chunk',
      created: 0,
      model: body.model,
    };
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
      ...envelope,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
    const sse = new SseWriter(res, reply);
    if (!(await sse.send(chunk({ role: 'assistant' })))) return;
    const { reasoning, text } = chunksOf(reply);
    for (const piece of reasoning) if (!(await sse.sendContent(chunk({ reasoning_content: piece })))) return;
    for (const piece of text) if (!(await sse.sendContent(chunk({ content: piece })))) return;
    const calls = toolCallsOf(reply, index);
    for (const [i, call] of calls.entries()) {
      const whole = {
        index: i,
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      };
      if (!(await sse.sendContent(chunk({ tool_calls: [whole] })))) return;
    }
    if (!(await sse.send(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop')))) return;
    const usage = reply.usage ?? {};
    const promptTokens = usage.promptTokens ?? 1;
    const completionTokens = usage.completionTokens ?? 1;
    await sse.send({
      ...envelope,
      choices: [],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
        prompt_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
        completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
      },
    });
    sse.end('data: [DONE]\n\n');
  },
};
