import { describe, expect, it } from 'vitest';
import { openAIChatDialect, type FakeChatRequestBody } from '../../testing/fake-server/openai-chat.js';
import { base64, expectSameFiles, mediaOf, useMediaWire } from '../media-wire.test-support.js';
import { grokBackend } from './index.js';

const wire = useMediaWire<FakeChatRequestBody>([openAIChatDialect], grokBackend, 'grok-4');
const { png, jpeg, pdf } = wire.media;

describe('grok backend: media on the wire', () => {
  it('sends JPEG and PNG images as image_url data URLs, byte for byte, and names a PDF instead', async () => {
    const recorded = await wire.sendAttachments([png, jpeg, pdf]);
    const user = recorded.body?.messages?.find((m) => m.role === 'user');
    expect(user?.content).toEqual([
      {
        type: 'text',
        text: 'What do these files show?\n[report.pdf (document, application/pdf) not shown: this model does not take document files.]',
      },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${base64(png)}` } },
      { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${base64(jpeg)}` } },
    ]);
    expectSameFiles(mediaOf(recorded), [png, jpeg]);
  });

  it('sends tool media in a user message after the tool messages', async () => {
    const recorded = await wire.sendToolMedia([png], []);
    expect(recorded.body?.messages?.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
    ]);
    expectSameFiles(mediaOf(recorded), [png]);
  });

  it('declares images for Grok 4 and vision models only', () => {
    expect(grokBackend.mediaIn?.({ model: 'grok-4' }).kinds).toEqual(['image']);
    expect(grokBackend.mediaIn?.({ model: 'grok-2-vision-1212' }).kinds).toEqual(['image']);
    expect(grokBackend.mediaIn?.({ model: 'grok-3-mini' }).kinds).toEqual([]);
    expect(grokBackend.mediaIn?.({ model: 'grok-code-fast-1' }).kinds).toEqual([]);
  });
});
