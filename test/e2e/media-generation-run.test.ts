/**
 * Media out (docs/multimodal.md): a scripted OpenAI agent — the real `@ai-sdk/openai` against the local
 * Responses fake, which also speaks OpenAI's image endpoint — calls `generate_image`. The PNG lands in
 * its workspace, the call's event carries its reference and price, the run's cost counts it, the model
 * sees the picture on its next request, and the delivered workspace holds the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runMassGen, type RunEvent } from '../../src/index.js';
import type { FakeRequestView } from '../../src/testing/fake-server/dialect.js';
import { FAKE_TRANSCRIPT, openAIMediaEndpoint } from '../../src/testing/fake-server/openai-media.js';
import { openAIResponsesDialect } from '../../src/testing/fake-server/openai-responses.js';
import type { FakeResponse } from '../../src/testing/fake-server/script.js';
import { startFakeServer, type FakeServer } from '../../src/testing/fake-server/server.js';
import { makeWorkdir, removeTempDirs } from './cli-harness.js';

type Body = { input?: Array<Record<string, unknown>> };

/** Every `input_image` content part of a Responses request. */
const imageParts = (body: Body) =>
  (body.input ?? []).flatMap((item) =>
    (Array.isArray(item.content) ? (item.content as Array<Record<string, unknown>>) : []).filter(
      (part) => part.type === 'input_image',
    ),
  );

describe('generate_image in a run', () => {
  const media = openAIMediaEndpoint();
  let server: FakeServer<Body>;
  beforeAll(async () => {
    server = await startFakeServer<Body>([openAIResponsesDialect], { routes: media.routes });
  });
  afterAll(async () => {
    await server?.close();
    removeTempDirs();
  });
  beforeEach(() => {
    server.reset();
    media.reset();
  });

  /** One run of a single OpenAI agent on the fake, with one media tool switched on; its events. */
  async function runGpt(question: string, tool: 'enable_image_generation' | 'enable_audio_generation') {
    const events: RunEvent[] = [];
    const result = await runMassGen({
      config: {
        agent: {
          id: 'gpt',
          backend: {
            type: 'openai',
            model: 'gpt-5-mini',
            base_url: `${server.origin}/v1`,
            cwd: 'ws',
            [tool]: true,
          },
        },
      },
      question,
      cwd: makeWorkdir(),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', OPENAI_API_KEY: 'sk-test-media-0000' },
      logging: false,
      onEvent: (event) => events.push(event),
    });
    return { result, events };
  }

  it('saves the image in the workspace, reports it with its cost and delivers it', async () => {
    server.setHandler((_body, index, view: FakeRequestView): FakeResponse => {
      if (index === 0 && view.toolNames.includes('generate_image')) {
        return {
          toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a gray tabby cat hugging an otter' } }],
        };
      }
      return { text: 'Here is the picture: generated/image-001.png' };
    });
    const { result, events } = await runGpt('Draw a cat hugging an otter.', 'enable_image_generation');
    expect(result.error).toBeUndefined();
    expect(result.status).toBe('completed');

    // The image request went to the agent's own provider, with its key, for the default image model.
    expect(media.requests).toHaveLength(1);
    expect(media.requests[0]).toMatchObject({
      path: '/v1/images/generations',
      hasAuthorization: true,
      json: { model: 'gpt-image-1', prompt: 'a gray tabby cat hugging an otter', n: 1 },
    });

    const call = events.find(
      (e): e is Extract<RunEvent, { type: 'tool.call.finished' }> =>
        e.type === 'tool.call.finished' && e.toolName === 'generate_image',
    );
    expect(call?.isError).toBe(false);
    expect(call?.media).toEqual([
      expect.objectContaining({ path: 'generated/image-001.png', mediaType: 'image/png', kind: 'image' }),
    ]);
    expect(call?.costUsd).toBeCloseTo(0.167, 6);
    // Events keep references only, never the bytes.
    expect(JSON.stringify(call)).not.toContain('base64');

    const finished = events.find(
      (e): e is Extract<RunEvent, { type: 'run.finished' }> => e.type === 'run.finished',
    );
    expect(finished?.costUsd.gpt).toBeGreaterThanOrEqual(0.167);

    // The model saw its picture on the next request.
    const images = imageParts(server.requests[1]!.body!);
    expect(images).toHaveLength(1);
    expect(String(images[0]!.image_url)).toMatch(/^data:image\/png;base64,/);

    // The winner's workspace is the deliverable, and holds the file.
    expect(result.workspaceDir).not.toBeNull();
    const png = fs.readFileSync(path.join(result.workspaceDir!, 'generated', 'image-001.png'));
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
  });
  it("generate_image with images edits a picture of the workspace (MassGen's image_to_image_generation)", async () => {
    const plan = [
      { name: 'generate_image', arguments: { prompt: 'a cat' } },
      { name: 'generate_image', arguments: { prompt: 'add a red hat', images: ['generated/image-001.png'] } },
    ];
    let step = 0;
    server.setHandler((_body, _index, view: FakeRequestView): FakeResponse => {
      const call = view.toolNames.includes('generate_image') ? plan[step++] : undefined;
      return call ? { toolCalls: [call] } : { text: 'The cat now wears a hat: generated/image-002.png' };
    });
    const { result, events } = await runGpt('Draw a cat, then give it a hat.', 'enable_image_generation');
    expect(result.status).toBe('completed');
    expect(media.requests.map((r) => r.path)).toEqual(['/v1/images/generations', '/v1/images/edits']);
    expect(media.requests[1]?.fields).toMatchObject({ model: 'gpt-image-1', prompt: 'add a red hat' });
    expect(media.requests[1]?.files).toEqual([expect.objectContaining({ type: 'image/png' })]);
    const edit = events.filter(
      (e): e is Extract<RunEvent, { type: 'tool.call.finished' }> =>
        e.type === 'tool.call.finished' && e.toolName === 'generate_image',
    )[1];
    expect(edit?.isError).toBe(false);
    expect(edit?.media).toEqual([expect.objectContaining({ path: 'generated/image-002.png' })]);
    expect(fs.existsSync(path.join(result.workspaceDir!, 'generated', 'image-002.png'))).toBe(true);
  });

  it("generate_speech then transcribe of the spoken file, through the agent's own path policy", async () => {
    const plan = [
      { name: 'generate_speech', arguments: { text: 'Elementary, my dear Watson.', voice: 'onyx' } },
      { name: 'transcribe', arguments: { path: 'generated/speech-001.mp3' } },
    ];
    let step = 0;
    server.setHandler((_body, _index, view: FakeRequestView): FakeResponse => {
      const call = view.toolNames.includes('transcribe') ? plan[step++] : undefined;
      return call ? { toolCalls: [call] } : { text: 'Spoken and checked.' };
    });
    const { result, events } = await runGpt(
      'Read a line of Sherlock Holmes aloud.',
      'enable_audio_generation',
    );
    expect(result.status).toBe('completed');
    expect(media.requests.map((r) => r.path)).toEqual(['/v1/audio/speech', '/v1/audio/transcriptions']);
    expect(media.requests[0]?.json).toMatchObject({ model: 'gpt-4o-mini-tts', voice: 'onyx' });
    expect(media.requests[1]?.fields.model).toBe('whisper-1');
    expect(media.requests[1]?.files[0]).toMatchObject({ field: 'file', type: 'audio/mpeg' });
    const finished = events.filter(
      (e): e is Extract<RunEvent, { type: 'tool.call.finished' }> => e.type === 'tool.call.finished',
    );
    expect(finished.map((e) => [e.toolName, e.isError])).toEqual([
      ['generate_speech', false],
      ['transcribe', false],
    ]);
    expect(finished[0]?.media).toEqual([
      expect.objectContaining({ path: 'generated/speech-001.mp3', mediaType: 'audio/mpeg', kind: 'audio' }),
    ]);
    expect(finished[1]?.result).toContain(FAKE_TRANSCRIPT);
    expect(fs.existsSync(path.join(result.workspaceDir!, 'generated', 'speech-001.mp3'))).toBe(true);
  });
});
