import { describe, expect, it } from 'vitest';
import {
  anthropicMessagesDialect,
  type FakeAnthropicBlock,
  type FakeMessagesRequestBody,
} from '../../testing/fake-server/anthropic-messages.js';
import { nativeComputerTool } from '../../tools/computer/native-actions.js';
import { pngMedia } from '../../tools/png-media.js';
import type { ChatMessage } from '../../types/messages.js';
import { collect, request, useDialectServer } from '../backend.test-support.js';
import { claudeBackend } from './index.js';

const fake = useDialectServer<FakeMessagesRequestBody>([anthropicMessagesDialect]);

const backend = (model: string) =>
  claudeBackend.create({
    type: 'claude',
    model,
    baseUrl: `${fake.server.origin}/v1`,
    apiKey: 'sk-ant-test-0000',
    providerOptions: {},
  });

/** A history where the model took a native screenshot and got a (tiny, fake) PNG back. */
function screenshotHistory(): ChatMessage[] {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
  return [
    { role: 'user', content: 'Look at the desktop.' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'toolu_1', name: 'computer', arguments: { action: 'screenshot' } }],
    },
    {
      role: 'tool',
      toolCallId: 'toolu_1',
      toolName: 'computer',
      content: 'screenshot: .computer/screenshots/001.png',
      media: [pngMedia(png, '.computer/screenshots/001.png')],
    },
  ];
}

describe("claude backend: Anthropic's computer tool", () => {
  it('sends a native computer definition as the versioned computer tool and reads its tool_use back', async () => {
    fake.server.enqueue({
      toolCalls: [{ name: 'computer', arguments: { action: 'left_click', coordinate: [120, 48] } }],
    });
    const parts = await collect(
      backend('claude-opus-4-5').stream(request({ tools: [nativeComputerTool(640, 480)] })),
    );
    const sent = fake.server.requests[0]!;
    expect(sent.body?.tools).toEqual([
      expect.objectContaining({
        name: 'computer',
        type: 'computer_20251124',
        display_width_px: 640,
        display_height_px: 480,
      }),
    ]);
    expect(sent.body?.tools?.[0]).not.toHaveProperty('input_schema');
    expect(sent.headers['anthropic-beta']).toMatch(/computer-use-2025-11-24/);
    expect(parts).toContainEqual({
      type: 'tool-call',
      call: {
        id: expect.any(String),
        name: 'computer',
        arguments: { action: 'left_click', coordinate: [120, 48] },
      },
    });
  });

  it("puts the screenshot inside the computer tool's tool_result as an image block", async () => {
    fake.server.enqueue({ text: 'I see it.' });
    await collect(
      backend('claude-sonnet-4-5').stream(
        request({ messages: screenshotHistory(), tools: [nativeComputerTool(640, 480)] }),
      ),
    );
    const messages = fake.server.requests[0]!.body!.messages!;
    const blocks = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    const result = blocks.find((b) => b.type === 'tool_result')!;
    expect(result.content).toEqual([
      { type: 'text', text: 'screenshot: .computer/screenshots/001.png' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORwECAw==' } },
    ]);
    // Not a second time in a user message of its own.
    expect(blocks.filter((b: FakeAnthropicBlock) => b.type === 'image')).toEqual([]);
  });

  it('a model without computer use gets the definition as an ordinary function tool', async () => {
    fake.server.enqueue({ text: 'ok' });
    await collect(
      backend('claude-3-5-haiku-latest').stream(request({ tools: [nativeComputerTool(640, 480)] })),
    );
    expect(fake.server.requests[0]!.body?.tools).toEqual([
      expect.objectContaining({
        name: 'computer',
        input_schema: expect.objectContaining({ type: 'object' }),
      }),
    ]);
  });
});
