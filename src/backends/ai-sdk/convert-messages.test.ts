import { describe, expect, it } from 'vitest';
import { sampleMedia } from '../../testing/media-fixtures.js';
import type { ChatMessage } from '../../types/messages.js';
import { mediaGate, NO_MEDIA_IN, OPENAI_RESPONSES_FORMATS } from '../media-input.js';
import { toLanguageModelPrompt, toModelMessages } from './convert-messages.js';

const { png, jpeg, wav, pdf } = sampleMedia();

/** A step that called two tools, both of which returned media, then the model's next turn. */
const toolStep: ChatMessage[] = [
  { role: 'user', content: 'Look.' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [
      { id: 'c1', name: 'read_media', arguments: { path: 'chart.png' } },
      { id: 'c2', name: 'screenshot', arguments: {} },
    ],
  },
  { role: 'tool', toolCallId: 'c1', toolName: 'read_media', content: 'chart.png (image/png)', media: [png] },
  { role: 'tool', toolCallId: 'c2', toolName: 'screenshot', content: 'taken', media: [jpeg] },
  { role: 'assistant', content: 'I see a chart.' },
];

describe('toLanguageModelPrompt: media', () => {
  it('sends a user message’s media as file parts after its text, with bytes, media type and name', () => {
    const prompt = toLanguageModelPrompt([{ role: 'user', content: 'What is this?', media: [png, pdf] }]);
    expect(prompt).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'file', data: png.data, mediaType: 'image/png', filename: 'chart.png' },
          { type: 'file', data: pdf.data, mediaType: 'application/pdf', filename: 'report.pdf' },
        ],
      },
    ]);
  });

  it('puts tool media in one user message after the step’s results, which stay together', () => {
    const prompt = toLanguageModelPrompt(toolStep);
    expect(prompt.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user', 'assistant']);
    expect(prompt[2]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'read_media',
          output: { type: 'text', value: 'chart.png (image/png)' },
        },
      ],
    });
    expect(prompt[4]).toEqual({
      role: 'user',
      content: [
        {
          type: 'text',
          text: 'Media returned by read_media (c1): chart.png\nMedia returned by screenshot (c2): photo.jpg',
        },
        { type: 'file', data: png.data, mediaType: 'image/png', filename: 'chart.png' },
        { type: 'file', data: jpeg.data, mediaType: 'image/jpeg', filename: 'photo.jpg' },
      ],
    });
  });

  it('keeps media inside a tool result the vendor takes it in, as base64 content', () => {
    const prompt = toLanguageModelPrompt(toolStep, {
      keepsMediaInResult: (m) => m.toolName === 'screenshot',
    });
    expect(prompt.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user', 'assistant']);
    expect(prompt[3]).toMatchObject({
      content: [
        {
          output: {
            type: 'content',
            value: [
              { type: 'text', text: 'taken' },
              {
                type: 'image-data',
                data: Buffer.from(jpeg.data).toString('base64'),
                mediaType: 'image/jpeg',
              },
            ],
          },
        },
      ],
    });
    // Only the other tool's media follows the results.
    expect(prompt[4]?.content).toHaveLength(2);
  });

  it('replaces a part the model or wire format cannot take with a line naming it and why', () => {
    const gate = mediaGate(
      { kinds: ['image', 'document'], maxBytes: { image: 100 } },
      OPENAI_RESPONSES_FORMATS,
    );
    const prompt = toLanguageModelPrompt([{ role: 'user', content: 'Compare.', media: [png, wav, jpeg] }], {
      gate,
    });
    const content = prompt[0]?.content as Array<{ type: string; text?: string }>;
    expect(content.filter((p) => p.type === 'file')).toHaveLength(1);
    expect(content[0]?.text).toBe(
      [
        'Compare.',
        '[voice.wav (audio, audio/wav) not shown: this model does not take audio files.]',
        `[photo.jpg (image, image/jpeg) not shown: larger than the provider's 100 bytes limit for image files.]`,
      ].join('\n'),
    );
  });

  it('sends no part at all to a model without media input, and never fails on one that arrives', () => {
    const gate = mediaGate(NO_MEDIA_IN(), {});
    const prompt = toLanguageModelPrompt(toolStep, { gate });
    expect(JSON.stringify(prompt)).not.toContain('"file"');
    expect(prompt[4]).toEqual({
      role: 'user',
      content: [
        {
          type: 'text',
          text: [
            'Media returned by read_media (c1): chart.png',
            'Media returned by screenshot (c2): photo.jpg',
            '[chart.png (image, image/png) not shown: this model does not take image files.]',
            '[photo.jpg (image, image/jpeg) not shown: this model does not take image files.]',
          ].join('\n'),
        },
      ],
    });
  });
});

describe('toModelMessages: media', () => {
  it('sends images as image parts and other media as file parts, and tool media after the results', () => {
    const messages = toModelMessages([
      { role: 'user', content: 'Hear this.', media: [png, wav] },
      ...toolStep,
    ]);
    expect(messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Hear this.' },
        { type: 'image', image: png.data, mediaType: 'image/png' },
        { type: 'file', data: wav.data, mediaType: 'audio/wav', filename: 'voice.wav' },
      ],
    });
    expect(messages.map((m) => m.role)).toEqual([
      'user',
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
      'assistant',
    ]);
    expect(messages[5]?.content).toHaveLength(3);
  });
});
