import { describe, expect, it } from 'vitest';
import { openAIChatDialect } from '../../testing/fake-server/openai-chat.js';
import { openAIResponsesDialect } from '../../testing/fake-server/openai-responses.js';
import { base64, expectSameFiles, mediaOf, useMediaWire } from '../media-wire.test-support.js';
import { openAIBackend } from './index.js';

const wire = useMediaWire<Record<string, unknown>>(
  [openAIResponsesDialect, openAIChatDialect],
  openAIBackend,
  'gpt-5-mini',
);
const { png, jpeg, wav, mp3, mp4, pdf } = wire.media;

describe('openai backend: media on the wire (Responses API)', () => {
  it('sends images as input_image data URLs and a PDF as input_file, byte for byte', async () => {
    const recorded = await wire.sendAttachments([png, jpeg, pdf]);
    expect(recorded.path).toBe('/v1/responses');
    const input = recorded.body?.input as Array<{ role?: string; content?: unknown }>;
    expect(input.find((item) => item.role === 'user')?.content).toEqual([
      { type: 'input_text', text: 'What do these files show?' },
      { type: 'input_image', image_url: `data:image/png;base64,${base64(png)}` },
      { type: 'input_image', image_url: `data:image/jpeg;base64,${base64(jpeg)}` },
      { type: 'input_file', filename: 'report.pdf', file_data: `data:application/pdf;base64,${base64(pdf)}` },
    ]);
    expectSameFiles(mediaOf(recorded), [png, jpeg, pdf]);
    expect(mediaOf(recorded).map((m) => m.part)).toEqual(['input_image', 'input_image', 'input_file']);
  });

  it('sends tool media in a user message right after the function_call_output items', async () => {
    const recorded = await wire.sendToolMedia([png], [pdf]);
    const input = recorded.body?.input as Array<{ type?: string; role?: string; content?: unknown }>;
    expect(input.map((item) => item.type ?? item.role)).toEqual([
      'developer',
      'user',
      'function_call',
      'function_call',
      'function_call_output',
      'function_call_output',
      'user',
    ]);
    expect(input.at(-1)?.content).toEqual([
      {
        type: 'input_text',
        text: 'Media returned by read_media (call_a): chart.png\nMedia returned by read_media (call_b): report.pdf',
      },
      { type: 'input_image', image_url: `data:image/png;base64,${base64(png)}` },
      { type: 'input_file', filename: 'report.pdf', file_data: `data:application/pdf;base64,${base64(pdf)}` },
    ]);
    expectSameFiles(mediaOf(recorded), [png, pdf]);
  });

  it('names audio and video it cannot send instead of failing the request', async () => {
    const recorded = await wire.sendAttachments([wav, mp4, png]);
    expectSameFiles(mediaOf(recorded), [png]);
    expect(recorded.view?.text).toContain(
      '[voice.wav (audio, audio/wav) not shown: this model does not take audio files.]',
    );
    expect(recorded.view?.text).toContain('[clip.mp4 (video, video/mp4) not shown');
  });
});

describe('openai backend: audio models (Chat Completions)', () => {
  it('sends WAV and MP3 as input_audio parts to gpt-4o-audio-preview, byte for byte', async () => {
    const recorded = await wire.sendAttachments([wav, mp3], { model: 'gpt-4o-audio-preview' });
    expect(recorded.path).toBe('/v1/chat/completions');
    const messages = recorded.body?.messages as Array<{ role: string; content: unknown }>;
    expect(messages.find((m) => m.role === 'user')?.content).toEqual([
      { type: 'text', text: 'What do these files show?' },
      { type: 'input_audio', input_audio: { data: base64(wav), format: 'wav' } },
      { type: 'input_audio', input_audio: { data: base64(mp3), format: 'mp3' } },
    ]);
    expectSameFiles(mediaOf(recorded), [wav, mp3]);
  });

  it('declares audio for audio models, images and PDF for vision models, nothing for text-only ones', () => {
    expect(openAIBackend.mediaIn?.({ model: 'gpt-4o-audio-preview' }).kinds).toEqual(['audio']);
    expect(openAIBackend.mediaIn?.({ model: 'gpt-5' }).kinds).toEqual(['image', 'document']);
    expect(openAIBackend.mediaIn?.({ model: 'gpt-3.5-turbo' }).kinds).toEqual([]);
    expect(openAIBackend.mediaIn?.({ model: 'o3-mini' }).kinds).toEqual([]);
  });
});
