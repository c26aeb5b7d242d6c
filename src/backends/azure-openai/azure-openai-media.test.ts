import { describe, expect, it } from 'vitest';
import {
  openAIResponsesDialect,
  type FakeResponsesRequestBody,
} from '../../testing/fake-server/openai-responses.js';
import { base64, expectSameFiles, mediaOf, useMediaWire } from '../media-wire.test-support.js';
import { azureOpenAIBackend } from './index.js';

const wire = useMediaWire<FakeResponsesRequestBody>(
  [openAIResponsesDialect],
  azureOpenAIBackend,
  'gpt-4o-deployment',
  '/openai/v1',
);
const { png, pdf } = wire.media;

describe('azure_openai backend: media on the wire', () => {
  it('sends images and PDF as OpenAI’s Responses parts, byte for byte', async () => {
    const recorded = await wire.sendAttachments([png, pdf]);
    expect(recorded.path).toBe('/openai/v1/responses');
    const input = recorded.body?.input as Array<{ role?: string; content?: unknown }>;
    expect(input.find((item) => item.role === 'user')?.content).toEqual([
      { type: 'input_text', text: 'What do these files show?' },
      { type: 'input_image', image_url: `data:image/png;base64,${base64(png)}` },
      { type: 'input_file', filename: 'report.pdf', file_data: `data:application/pdf;base64,${base64(pdf)}` },
    ]);
    expectSameFiles(mediaOf(recorded), [png, pdf]);
  });

  it('declares what OpenAI’s models take', () => {
    expect(azureOpenAIBackend.mediaIn?.({ model: 'my-gpt-4o' }).kinds).toEqual(['image', 'document']);
  });
});
