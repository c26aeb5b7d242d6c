/**
 * `massgen/ai-sdk` with media: image and file parts of the prompt reach the team as attachments (the
 * agents' model requests carry the image; the run's log names each file), driven by the real
 * `generateText`; a file that is not media is refused with a line naming it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { createMassGen } from '../../src/ai-provider/index.js';
import { samplePng, sampleWav } from '../../src/testing/fake-server/media-samples.js';
import type { FakeChatRequestBody } from '../../src/testing/index.js';
import type { RunEvent } from '../../src/types/events.js';
import { agentEntry, convergingHandler, makeWorkdir, persona, useFakeServer } from './cli-harness.js';

const fake = useFakeServer();

function provider() {
  const cwd = makeWorkdir();
  const config = {
    agents: ['alpha', 'beta'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
  };
  return { cwd, mg: createMassGen({ config, cwd, env: {} }) };
}

const png = samplePng(7, 5, [250, 200, 10]);

describe('massgen/ai-sdk with media', () => {
  it('passes image and file parts to the team as attachments', async () => {
    const seen: FakeChatRequestBody[] = [];
    fake.server.setHandler((body) => {
      seen.push(body);
      return convergingHandler(body);
    });
    const { mg } = provider();
    const result = await generateText({
      model: mg('massgen'),
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What colour is the picture?' },
            { type: 'image', image: png, mediaType: 'image/png' },
            { type: 'file', data: sampleWav(0.1), mediaType: 'audio/wav', filename: 'tone.wav' },
          ],
        },
      ],
    });
    expect(result.finishReason).toBe('stop');
    expect(seen.some((body) => JSON.stringify(body.messages).includes(png.toString('base64')))).toBe(true);
    const meta = result.providerMetadata?.massgen as { logDir: string };
    const events = fs
      .readFileSync(path.join(meta.logDir, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as RunEvent);
    const started = events.find((e) => e.type === 'run.started');
    expect(started?.type === 'run.started' && started.attachments?.map((a) => [a.name, a.kind])).toEqual([
      ['image-1', 'image'],
      ['tone.wav', 'audio'],
    ]);
  });

  it('refuses a file part that is not media, naming it', async () => {
    fake.server.setHandler(convergingHandler);
    const { mg } = provider();
    await expect(
      generateText({
        model: mg('massgen'),
        maxRetries: 0,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Read this' },
              {
                type: 'file',
                data: Buffer.from('plain words\n'),
                mediaType: 'application/pdf',
                filename: 'notes.pdf',
              },
            ],
          },
        ],
      }),
    ).rejects.toThrow(/prompt\[0\]\.content\[1\] \(notes\.pdf\): /);
  });
});
