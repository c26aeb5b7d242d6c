import { describe, expect, it } from 'vitest';
import { geminiDialect, type FakeGeminiRequestBody } from '../../testing/fake-server/gemini.js';
import { base64, expectSameFiles, mediaOf, useMediaWire } from '../media-wire.test-support.js';
import { geminiBackend } from './index.js';

const wire = useMediaWire<FakeGeminiRequestBody>(
  [geminiDialect],
  geminiBackend,
  'gemini-2.5-flash',
  '/v1beta',
);
const { png, jpeg, wav, mp3, mp4, pdf } = wire.media;

describe('gemini backend: media on the wire', () => {
  it('sends images, audio, video and PDF as inlineData parts, byte for byte', async () => {
    const all = [png, jpeg, wav, mp3, mp4, pdf];
    const recorded = await wire.sendAttachments(all);
    expect(recorded.body?.contents?.[0]).toEqual({
      role: 'user',
      parts: [
        { text: 'What do these files show?' },
        ...all.map((part) => ({ inlineData: { mimeType: part.mediaType, data: base64(part) } })),
      ],
    });
    expectSameFiles(mediaOf(recorded), all);
  });

  it('sends tool media in a user turn after the functionResponse parts', async () => {
    const recorded = await wire.sendToolMedia([png], [mp4]);
    const contents = recorded.body?.contents ?? [];
    const isResponse = (c: (typeof contents)[number]) =>
      c.parts?.some((p) => 'functionResponse' in p) ?? false;
    const responses = contents.findLastIndex(isResponse);
    // Both results come first, together; the media follows them.
    expect(contents.slice(responses - 1, responses + 1).every(isResponse)).toBe(true);
    expect(contents[responses + 1]).toEqual({
      role: 'user',
      parts: [
        {
          text: 'Media returned by read_media (call_a): chart.png\nMedia returned by read_media (call_b): clip.mp4',
        },
        { inlineData: { mimeType: 'image/png', data: base64(png) } },
        { inlineData: { mimeType: 'video/mp4', data: base64(mp4) } },
      ],
    });
    expectSameFiles(mediaOf(recorded), [png, mp4]);
  });

  it('records fileData parts by URI in the fake server', () => {
    const view = geminiDialect.view(
      {
        contents: [
          {
            role: 'user',
            parts: [
              { text: 'Watch.' },
              { fileData: { mimeType: 'video/mp4', fileUri: 'https://files/abc' } },
            ],
          },
        ],
      },
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
    );
    expect(view.media).toEqual([
      {
        kind: 'video',
        mediaType: 'video/mp4',
        data: new Uint8Array(),
        uri: 'https://files/abc',
        part: 'fileData',
        messageIndex: 0,
        role: 'user',
        inToolResult: false,
      },
    ]);
  });

  it('declares every kind, within the ~20 MB inline request', () => {
    const input = geminiBackend.mediaIn?.({ model: 'gemini-2.5-pro' });
    expect(input?.kinds).toEqual(['image', 'audio', 'video', 'document']);
    expect(input?.maxBytes?.video).toBe(20 * 1024 * 1024);
  });
});
