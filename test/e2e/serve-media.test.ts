/**
 * Media through `massgen serve`, with the official `openai` client over real HTTP on loopback: a user
 * message's `image_url` (a data: URL), `input_audio` and `file` parts reach the agents as attachments
 * (the agents' model requests carry the image, the run's log names every file); remote image URLs,
 * `file_id`s, files that are not media and files over a limit are refused with one clear line.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startServeServer, type ServeServer } from '../../src/server/openai/serve-server.js';
import { samplePng, sampleWav } from '../../src/testing/fake-server/media-samples.js';
import type { FakeChatRequestBody } from '../../src/testing/index.js';
import {
  agentEntry,
  convergingHandler,
  makeWorkdir,
  onlyLogDir,
  persona,
  readEvents,
  writeConfig,
  useFakeServer,
} from './cli-harness.js';

const fake = useFakeServer();
const servers: ServeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve() {
  const cwd = makeWorkdir();
  writeConfig(
    cwd,
    {
      agents: ['alpha', 'beta'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
      timeout_settings: { agent_turn_timeout_seconds: 20, orchestrator_timeout_seconds: 60 },
    },
    'team.yaml',
  );
  const server = await startServeServer({ cwd, env: {}, config: 'team.yaml', port: 0 });
  servers.push(server);
  const client = new OpenAI({ baseURL: server.url, apiKey: server.apiKey as string, maxRetries: 0 });
  return { cwd, client };
}

const png = samplePng(5, 3, [10, 200, 90]);
const wav = sampleWav(0.1);
const dataUrl = (type: string, data: Buffer) => `data:${type};base64,${data.toString('base64')}`;

/** The status and message of a refused request. */
async function refusal(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OpenAI.APIError) return { status: error.status ?? 0, message: error.message };
    throw error;
  }
  throw new Error('the request was not refused');
}

describe('massgen serve with media parts', { timeout: 300_000 }, () => {
  it(
    'sends image_url, input_audio and file parts to the team as attachments',
    { timeout: 120_000 },
    async () => {
      const seen: FakeChatRequestBody[] = [];
      fake.server.setHandler((body) => {
        seen.push(body);
        return convergingHandler(body);
      });
      const { cwd, client } = await serve();
      const completion = await client.chat.completions.create({
        model: 'massgen',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What colour is this picture, and what do you hear?' },
              { type: 'image_url', image_url: { url: dataUrl('image/png', png) } },
              { type: 'input_audio', input_audio: { data: wav.toString('base64'), format: 'wav' } },
              { type: 'file', file: { file_data: dataUrl('image/png', png), filename: 'again.png' } },
            ],
          },
        ],
      });
      expect(completion.choices[0]?.message.content).toMatch(/Final answer/);
      // The agents' model requests carry the picture.
      expect(seen.some((body) => JSON.stringify(body.messages).includes(png.toString('base64')))).toBe(true);
      const started = readEvents(onlyLogDir(cwd)).find((e) => e.type === 'run.started');
      expect(
        started?.type === 'run.started' && started.attachments?.map((a) => [a.name, a.kind, a.mediaType]),
      ).toEqual([
        ['image-1', 'image', 'image/png'],
        ['audio-2.wav', 'audio', 'audio/wav'],
        ['again.png', 'image', 'image/png'],
      ]);
    },
  );

  it('refuses remote image URLs, file ids, files that are not media and files over the limit', async () => {
    fake.server.setHandler(convergingHandler);
    const { client } = await serve();
    const ask = (part: OpenAI.Chat.Completions.ChatCompletionContentPart) =>
      client.chat.completions.create({
        model: 'massgen',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Look:' }, part] }],
      });

    const remote = await refusal(
      ask({ type: 'image_url', image_url: { url: 'http://169.254.169.254/x.png' } }),
    );
    expect(remote.status).toBe(400);
    expect(remote.message).toContain('messages[0].content[1]: massgen serve does not fetch image URLs');
    expect(remote.message).toContain('data: URL');

    const byId = await refusal(ask({ type: 'file', file: { file_id: 'file-abc' } }));
    expect(byId.status).toBe(400);
    expect(byId.message).toContain('"file_id" cannot be used: send the file inline as "file_data"');

    const text = await refusal(
      ask({
        type: 'file',
        file: { file_data: Buffer.from('plain words\n').toString('base64'), filename: 'notes.pdf' },
      }),
    );
    expect(text.status).toBe(400);
    expect(text.message).toMatch(/^400 messages\[0\]\.content\[1\] \(notes\.pdf\): /);

    const big = Buffer.concat([png, Buffer.alloc(21 * 1024 * 1024)]);
    const tooLarge = await refusal(ask({ type: 'image_url', image_url: { url: dataUrl('image/png', big) } }));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.message).toMatch(/over the 20 MB limit for images/);

    const assistantMedia = await refusal(
      client.chat.completions.create({
        model: 'massgen',
        messages: [
          { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
          {
            role: 'user',
            content: [{ type: 'input_audio', input_audio: { data: 'not base64!', format: 'wav' } }],
          },
        ],
      }),
    );
    expect(assistantMedia.status).toBe(400);
    expect(assistantMedia.message).toContain('"input_audio.data" is not base64');
  });
});
