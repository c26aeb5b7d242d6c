import { describe, expect, it } from 'vitest';
import { openAIChatDialect, type FakeChatRequestBody } from '../../testing/fake-server/openai-chat.js';
import { vllmBackend } from '../local-servers/local-server-backends.js';
import {
  attachmentsTurn,
  base64,
  expectSameFiles,
  mediaOf,
  sendOnce,
  useMediaWire,
} from '../media-wire.test-support.js';
import { chatCompletionBackend } from './index.js';

const wire = useMediaWire<FakeChatRequestBody>([openAIChatDialect], chatCompletionBackend, 'qwen2.5-vl');
const { png, jpeg, wav, mp3, mp4, pdf } = wire.media;

const userContent = (body: FakeChatRequestBody | null) =>
  body?.messages?.find((m) => m.role === 'user')?.content;

describe('chatcompletion backend: media on the wire', () => {
  it('sends images as image_url data URLs by default and names what the model does not take', async () => {
    const recorded = await wire.sendAttachments([png, jpeg, wav]);
    expect(userContent(recorded.body)).toEqual([
      {
        type: 'text',
        text: 'What do these files show?\n[voice.wav (audio, audio/wav) not shown: this model does not take audio files.]',
      },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${base64(png)}` } },
      { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${base64(jpeg)}` } },
    ]);
    expectSameFiles(mediaOf(recorded), [png, jpeg]);
  });

  it('sends OpenAI’s audio as input_audio and PDF as a file part when media_in allows them', async () => {
    const recorded = await wire.sendAttachments([wav, mp3, pdf], { mediaIn: ['audio', 'document'] });
    expect(userContent(recorded.body)).toEqual([
      { type: 'text', text: 'What do these files show?' },
      { type: 'input_audio', input_audio: { data: base64(wav), format: 'wav' } },
      { type: 'input_audio', input_audio: { data: base64(mp3), format: 'mp3' } },
      {
        type: 'file',
        file: { filename: 'report.pdf', file_data: `data:application/pdf;base64,${base64(pdf)}` },
      },
    ]);
    expectSameFiles(mediaOf(recorded), [wav, mp3, pdf]);
  });

  it('sends tool media in a user message after the step’s tool messages', async () => {
    const recorded = await wire.sendToolMedia([png], [jpeg]);
    const messages = recorded.body?.messages ?? [];
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user']);
    expect(messages.at(-1)?.content).toEqual([
      {
        type: 'text',
        text: 'Media returned by read_media (call_a): chart.png\nMedia returned by read_media (call_b): photo.jpg',
      },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${base64(png)}` } },
      { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${base64(jpeg)}` } },
    ]);
    expectSameFiles(mediaOf(recorded), [png, jpeg]);
  });

  it('sends no media part to a model configured with media_in: []', async () => {
    const recorded = await wire.sendAttachments([png], { mediaIn: [] });
    expect(mediaOf(recorded)).toEqual([]);
    expect(userContent(recorded.body)).toBe(
      'What do these files show?\n[chart.png (image, image/png) not shown: this model does not take image files.]',
    );
  });

  it('declares images by default, OpenAI’s figures for OpenAI, and media_in when set', () => {
    expect(
      chatCompletionBackend.mediaIn?.({ model: 'llama-4', baseUrl: 'http://127.0.0.1:8000/v1' }).kinds,
    ).toEqual(['image']);
    expect(chatCompletionBackend.mediaIn?.({ model: 'gpt-4o-audio-preview' }).kinds).toEqual(['audio']);
    expect(chatCompletionBackend.mediaIn?.({ model: 'gpt-4o', provider: 'openai' }).kinds).toEqual([
      'image',
      'document',
    ]);
    expect(
      chatCompletionBackend.mediaIn?.({ model: 'm', provider: 'groq', mediaIn: ['video', 'image'] }).kinds,
    ).toEqual(['image', 'video']);
  });
});

describe('local server backends: video for models that take it', () => {
  it('sends video as vLLM’s video_url part when media_in includes video, byte for byte', async () => {
    const vllm = wire.backend(
      { model: 'Qwen/Qwen2.5-VL-7B-Instruct', mediaIn: ['image', 'video'] },
      vllmBackend,
    );
    const recorded = await sendOnce(vllm, wire.server, attachmentsTurn([mp4, png]));
    expect(userContent(recorded.body)).toEqual([
      { type: 'text', text: 'What do these files show?' },
      { type: 'video_url', video_url: { url: `data:video/mp4;base64,${base64(mp4)}` } },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${base64(png)}` } },
    ]);
    expectSameFiles(mediaOf(recorded), [mp4, png]);
  });

  it('takes images only unless media_in says otherwise', () => {
    expect(vllmBackend.mediaIn?.({ model: 'm' }).kinds).toEqual(['image']);
    expect(vllmBackend.mediaIn?.({ model: 'm', mediaIn: ['video'] }).kinds).toEqual(['video']);
  });
});
