import { describe, expect, it } from 'vitest';
import { tinyPng, tinyWav } from '../media-fixtures.js';
import { anthropicMessagesDialect } from './anthropic-messages.js';
import { openAIChatDialect } from './openai-chat.js';
import { openAIResponsesDialect } from './openai-responses.js';
import { startFakeServer } from './server.js';

const png = tinyPng();
const wav = tinyWav();
const b64 = (data: Buffer) => data.toString('base64');

describe('fake servers record the media a request carried, decoded', () => {
  it('reads OpenAI Chat image_url, input_audio, file and video_url parts', () => {
    const view = openAIChatDialect.view(
      {
        model: 'm',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'hi' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${b64(png)}` } },
              { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
              { type: 'input_audio', input_audio: { data: b64(wav), format: 'wav' } },
              {
                type: 'file',
                file: { filename: 'x.pdf', file_data: 'data:application/pdf;base64,JVBERg==' },
              },
              { type: 'video_url', video_url: { url: 'data:video/mp4;base64,AAAA' } },
            ],
          },
        ],
      },
      '/v1/chat/completions',
    );
    expect(
      view.media.map((m) => [m.part, m.kind, m.mediaType, m.data.byteLength, m.uri, m.filename]),
    ).toEqual([
      ['image_url', 'image', 'image/png', png.length, undefined, undefined],
      ['image_url', 'image', 'image/*', 0, 'https://example.com/a.png', undefined],
      ['input_audio', 'audio', 'audio/wav', wav.length, undefined, undefined],
      ['file', 'document', 'application/pdf', 4, undefined, 'x.pdf'],
      ['video_url', 'video', 'video/mp4', 3, undefined, undefined],
    ]);
    expect(Buffer.from(view.media[0]!.data).equals(png)).toBe(true);
  });

  it('reads media inside Responses tool outputs and Anthropic tool results, marked as such', () => {
    const responses = openAIResponsesDialect.view(
      {
        input: [
          { role: 'user', content: [{ type: 'input_text', text: 'q' }] },
          {
            type: 'function_call_output',
            call_id: 'c',
            output: [{ type: 'input_image', image_url: `data:image/png;base64,${b64(png)}` }],
          },
        ],
      },
      '/v1/responses',
    );
    expect(responses.media).toMatchObject([{ part: 'input_image', messageIndex: 1, inToolResult: true }]);
    const anthropic = anthropicMessagesDialect.view(
      {
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 't',
                content: [
                  { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64(png) } },
                ],
              },
            ],
          },
        ],
      },
      '/v1/messages',
    );
    expect(anthropic.media).toMatchObject([
      { part: 'image', kind: 'image', role: 'user', inToolResult: true },
    ]);
    expect(Buffer.from(anthropic.media[0]!.data).equals(png)).toBe(true);
  });

  it('lets a handler answer by the media it was shown', async () => {
    const server = await startFakeServer([openAIChatDialect]);
    try {
      server.setHandler((_body, _i, view) => ({
        text: view.media.map((m) => m.mediaType).join(',') || 'none',
      }));
      const response = await fetch(`${server.origin}/v1/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({
          model: 'm',
          messages: [
            {
              role: 'user',
              content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${b64(png)}` } }],
            },
          ],
        }),
      });
      const json = (await response.json()) as { choices: Array<{ message: { content: string } }> };
      expect(json.choices[0]?.message.content).toBe('image/png');
      expect(server.requests[0]?.view?.media).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
