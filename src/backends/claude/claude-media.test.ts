import { describe, expect, it } from 'vitest';
import {
  anthropicMessagesDialect,
  type FakeMessagesRequestBody,
} from '../../testing/fake-server/anthropic-messages.js';
import { base64, expectSameFiles, mediaOf, useMediaWire } from '../media-wire.test-support.js';
import { claudeBackend } from './index.js';

const wire = useMediaWire<FakeMessagesRequestBody>(
  [anthropicMessagesDialect],
  claudeBackend,
  'claude-sonnet-4-5',
);
const { png, jpeg, wav, pdf } = wire.media;

describe('claude backend: media on the wire (Messages API)', () => {
  it('sends images as base64 image blocks and a PDF as a document block, byte for byte', async () => {
    const recorded = await wire.sendAttachments([png, jpeg, pdf]);
    expect(recorded.body?.messages?.[0]?.content).toEqual([
      { type: 'text', text: 'What do these files show?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: base64(png) } },
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: base64(jpeg) } },
      {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: base64(pdf) },
        title: 'report.pdf',
      },
    ]);
    expectSameFiles(mediaOf(recorded), [png, jpeg, pdf]);
    expect(mediaOf(recorded).at(-1)).toMatchObject({ part: 'document', filename: 'report.pdf' });
  });

  it('sends tool media after the tool_result blocks of the same user turn', async () => {
    const recorded = await wire.sendToolMedia([png], [jpeg]);
    const last = recorded.body?.messages?.at(-1);
    expect(last?.role).toBe('user');
    const blocks = last?.content as Array<{ type: string }>;
    expect(blocks.map((b) => b.type)).toEqual(['tool_result', 'tool_result', 'text', 'image', 'image']);
    expectSameFiles(mediaOf(recorded), [png, jpeg]);
    expect(mediaOf(recorded).every((m) => !m.inToolResult)).toBe(true);
  });

  it('names audio it cannot send instead of failing the request', async () => {
    const recorded = await wire.sendAttachments([wav, png]);
    expectSameFiles(mediaOf(recorded), [png]);
    expect(recorded.view?.text).toContain('[voice.wav (audio, audio/wav) not shown');
  });

  it('declares images and PDF, with Anthropic’s per-file limits; Claude 3.0 models take no PDF', () => {
    expect(claudeBackend.mediaIn?.({ model: 'claude-sonnet-4-5' })).toEqual({
      kinds: ['image', 'document'],
      maxBytes: { image: 5 * 1024 * 1024, document: 32 * 1024 * 1024 },
    });
    expect(claudeBackend.mediaIn?.({ model: 'claude-3-haiku-20240307' }).kinds).toEqual(['image']);
    expect(claudeBackend.mediaIn?.({ model: 'claude-3-5-haiku-latest' }).kinds).toEqual([
      'image',
      'document',
    ]);
  });
});
