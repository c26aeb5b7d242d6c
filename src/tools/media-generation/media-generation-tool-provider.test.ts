import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { geminiMediaEndpoint } from '../../testing/fake-server/gemini-media.js';
import type { FakeMediaEndpoint } from '../../testing/fake-server/media-endpoint.js';
import { samplePng, sampleWav } from '../../testing/fake-server/media-samples.js';
import { FAKE_TRANSCRIPT, openAIMediaEndpoint } from '../../testing/fake-server/openai-media.js';
import { startFakeServer, type FakeServer } from '../../testing/fake-server/server.js';
import type { ToolContext } from '../../types/tool.js';
import { createMediaGenerationToolProvider } from './media-generation-tool-provider.js';
import type { MediaGenerationSettings, MediaModelSettings } from './settings.js';

// The real AI SDK provider packages against local servers speaking OpenAI's and Google's media formats.
let server: FakeServer;
let openai: FakeMediaEndpoint;
let gemini: FakeMediaEndpoint;
let workspace: string;

beforeAll(async () => {
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
  openai = openAIMediaEndpoint();
  gemini = geminiMediaEndpoint();
  server = await startFakeServer([], { routes: [...openai.routes, ...gemini.routes] });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  openai.reset();
  gemini.reset();
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-media-'));
});
afterEach(() => {
  fs.rmSync(workspace, { recursive: true, force: true });
});

const context = (): ToolContext => ({
  agentId: 'a',
  phase: 'coordination',
  signal: new AbortController().signal,
});

const openAIModel = (model: string): MediaModelSettings => ({
  provider: 'openai',
  model,
  apiKey: 'sk-test-media-1234',
  baseUrl: `${server.origin}/v1`,
  local: true,
});
const geminiModel = (model: string): MediaModelSettings => ({
  provider: 'gemini',
  model,
  apiKey: 'g-test-media-5678',
  baseUrl: `${server.origin}/v1beta`,
  local: true,
});

function provider(models: MediaGenerationSettings['models'], extra: Partial<MediaGenerationSettings> = {}) {
  return createMediaGenerationToolProvider({ workspace, models, ...extra });
}

const isPng = (file: string) => fs.readFileSync(file).subarray(1, 4).toString('ascii') === 'PNG';

describe('media generation tools', () => {
  it('offers one tool per configured job', () => {
    const tools = provider({
      image: openAIModel('gpt-image-1'),
      transcription: openAIModel('whisper-1'),
    }).tools();
    expect(tools.map((t) => t.name)).toEqual(['generate_image', 'transcribe']);
  });

  it('generate_image: OpenAI images land in the workspace, are returned as media and priced', async () => {
    const tools = provider({ image: openAIModel('gpt-image-1') });
    const result = await tools.call(
      'generate_image',
      { prompt: 'a tabby cat hugging an otter', size: '1024x1024', n: 2 },
      context(),
    );
    expect(result.isError).toBeUndefined();
    expect(result.media?.map((m) => [m.path, m.mediaType, m.kind])).toEqual([
      ['generated/image-001.png', 'image/png', 'image'],
      ['generated/image-002.png', 'image/png', 'image'],
    ]);
    expect(isPng(path.join(workspace, 'generated/image-001.png'))).toBe(true);
    expect(result.media?.[0]?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(result.costUsd).toBeCloseTo(0.334, 6);
    expect(result.content).toContain('generated/image-002.png');
    const [request] = openai.requests;
    expect(request?.path).toBe('/v1/images/generations');
    expect(request?.hasAuthorization).toBe(true);
    expect(request?.json).toEqual({
      model: 'gpt-image-1',
      prompt: 'a tabby cat hugging an otter',
      n: 2,
      size: '1024x1024',
    });
    // The next call numbers on from what is there.
    const again = await tools.call('generate_image', { prompt: 'another' }, context());
    expect(again.media?.[0]?.path).toBe('generated/image-003.png');
  });

  it('generate_image with images: edits workspace images through /images/edits, saved as new files', async () => {
    const tools = provider({ image: openAIModel('gpt-image-1') });
    fs.mkdirSync(path.join(workspace, 'photos'));
    fs.writeFileSync(path.join(workspace, 'photos/cat.png'), samplePng());
    const result = await tools.call(
      'generate_image',
      { prompt: 'give the cat a red hat', images: ['photos/cat.png'] },
      context(),
    );
    expect(result.isError).toBeUndefined();
    expect(result.media?.map((m) => m.path)).toEqual(['generated/image-001.png']);
    expect(isPng(path.join(workspace, 'generated/image-001.png'))).toBe(true);
    expect(result.content).toContain('from photos/cat.png');
    const [request] = openai.requests;
    expect(request?.path).toBe('/v1/images/edits');
    expect(request?.fields).toMatchObject({ model: 'gpt-image-1', prompt: 'give the cat a red hat' });
    expect(request?.files).toEqual([
      expect.objectContaining({ type: 'image/png', bytes: samplePng().length }),
    ]);
  });

  it('generate_image with images: refuses files outside the workspace and non-images, before any request', async () => {
    const tools = provider({ image: openAIModel('gpt-image-1') });
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-outside-'));
    try {
      fs.writeFileSync(path.join(outside, 'secret.png'), samplePng());
      fs.symlinkSync(path.join(outside, 'secret.png'), path.join(workspace, 'link.png'));
      fs.writeFileSync(path.join(workspace, 'notes.txt'), 'just text');
      for (const images of [
        ['../' + path.basename(outside) + '/secret.png'],
        ['link.png'],
        [outside + '/secret.png'],
      ]) {
        const result = await tools.call('generate_image', { prompt: 'x', images }, context());
        expect(result.isError).toBe(true);
        expect(result.content).toContain('outside your workspace');
      }
      const text = await tools.call('generate_image', { prompt: 'x', images: ['notes.txt'] }, context());
      expect(text.content).toContain('notes.txt is text/plain, not a PNG, JPEG or WebP image');
      expect(openai.requests).toHaveLength(0);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('generate_image: dall-e-3 is asked for base64, and an unknown model is not counted', async () => {
    const dalle = await provider({ image: openAIModel('dall-e-3') }).call(
      'generate_image',
      { prompt: 'x', size: '1792x1024' },
      context(),
    );
    expect(openai.requests[0]?.json).toMatchObject({ model: 'dall-e-3', response_format: 'b64_json' });
    expect(dalle.costUsd).toBe(0.08);
    const unknown = await provider({ image: openAIModel('my-image-model') }).call(
      'generate_image',
      { prompt: 'x' },
      context(),
    );
    expect(unknown.costUsd).toBeUndefined();
    expect(unknown.content).toContain('no price is known for my-image-model');
  });

  it("generate_image: the provider's refusal is a tool error with its message", async () => {
    openai.failNext(400, 'Your request was rejected by the safety system.');
    const result = await provider({ image: openAIModel('gpt-image-1') }).call(
      'generate_image',
      { prompt: 'x' },
      context(),
    );
    expect(result.isError).toBe(true);
    expect(result.content).toContain('rejected by the safety system');
    expect(fs.existsSync(path.join(workspace, 'generated/image-001.png'))).toBe(false);
  });

  it('generate_image: never writes through a generated/ that leads outside the workspace', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-outside-'));
    try {
      fs.symlinkSync(outside, path.join(workspace, 'generated'));
      const result = await provider({ image: openAIModel('gpt-image-1') }).call(
        'generate_image',
        { prompt: 'x' },
        context(),
      );
      expect(result.isError).toBe(true);
      expect(result.content).toContain('leads outside');
      expect(fs.readdirSync(outside)).toEqual([]);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('generate_speech: OpenAI speech is saved as audio and priced per character', async () => {
    const text = 'Sherlock Holmes is a consulting detective.';
    const result = await provider({ speech: openAIModel('gpt-4o-mini-tts') }).call(
      'generate_speech',
      { text, voice: 'coral' },
      context(),
    );
    expect(result.isError).toBeUndefined();
    expect(result.media?.map((m) => [m.path, m.mediaType, m.kind])).toEqual([
      ['generated/speech-001.mp3', 'audio/mpeg', 'audio'],
    ]);
    expect(openai.requests[0]?.json).toMatchObject({
      model: 'gpt-4o-mini-tts',
      input: text,
      voice: 'coral',
      response_format: 'mp3',
    });
    expect(result.costUsd).toBeCloseTo((15 * text.length) / 1e6, 9);
  });

  it('transcribe: uploads a workspace file and returns the text', async () => {
    fs.writeFileSync(path.join(workspace, 'note.wav'), sampleWav(0.5));
    const result = await provider({ transcription: openAIModel('whisper-1') }).call(
      'transcribe',
      { path: 'note.wav' },
      context(),
    );
    expect(result.isError).toBeUndefined();
    expect(result.content).toContain(FAKE_TRANSCRIPT);
    expect(result.media).toBeUndefined();
    const [request] = openai.requests;
    expect(request?.path).toBe('/v1/audio/transcriptions');
    expect(request?.fields.model).toBe('whisper-1');
    expect(request?.files).toEqual([
      { field: 'file', filename: 'audio.wav', type: 'audio/wav', bytes: sampleWav(0.5).length },
    ]);
    // 3 seconds reported by the provider, at $0.006 a minute.
    expect(result.costUsd).toBeCloseTo(0.0003, 9);
  });

  it('transcribe: refuses files outside the workspace and files that are not audio', async () => {
    const tools = provider({ transcription: openAIModel('whisper-1') });
    fs.writeFileSync(path.join(workspace, 'notes.txt'), 'just text');
    const outside = await tools.call('transcribe', { path: '../../etc/hostname' }, context());
    expect(outside.isError).toBe(true);
    const text = await tools.call('transcribe', { path: 'notes.txt' }, context());
    expect(text.isError).toBe(true);
    expect(text.content).toContain('not an audio file');
    expect(openai.requests).toHaveLength(0);
  });

  it('generate_image on Gemini: Imagen :predict with the size as an aspect ratio', async () => {
    const result = await provider({ image: geminiModel('imagen-4.0-generate-001') }).call(
      'generate_image',
      { prompt: 'a lighthouse', size: '1920x1080' },
      context(),
    );
    expect(result.isError).toBeUndefined();
    expect(result.media?.[0]?.path).toBe('generated/image-001.png');
    const [request] = gemini.requests;
    expect(request?.path).toBe('/v1beta/models/imagen-4.0-generate-001:predict');
    expect(request?.hasAuthorization).toBe(true);
    expect(request?.json).toMatchObject({
      instances: [{ prompt: 'a lighthouse' }],
      parameters: { sampleCount: 1, aspectRatio: '16:9' },
    });
    expect(result.costUsd).toBe(0.04);
  });

  it('generate_video on Gemini: Veo long-running operation, polled, downloaded into the workspace', async () => {
    const result = await provider(
      { video: geminiModel('veo-3.0-fast-generate-001') },
      { pollIntervalMs: 10 },
    ).call('generate_video', { prompt: 'waves on a beach', duration: 4 }, context());
    expect(result.content).not.toContain('failed');
    expect(result.media?.map((m) => [m.path, m.mediaType, m.kind])).toEqual([
      ['generated/video-001.mp4', 'video/mp4', 'video'],
    ]);
    expect(gemini.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1beta/models/veo-3.0-fast-generate-001:predictLongRunning',
      'GET /v1beta/operations/video-1',
      'GET /v1beta/files/video-1:download',
    ]);
    expect(gemini.requests[0]?.json).toMatchObject({
      instances: [{ prompt: 'waves on a beach' }],
      parameters: { sampleCount: 1, durationSeconds: 4 },
    });
    expect(result.costUsd).toBeCloseTo(0.6, 9);
  });
});

describe('generate_video on OpenAI (Sora)', () => {
  it('creates a job, polls it and downloads the content into the workspace', async () => {
    const result = await provider({ video: openAIModel('sora-2') }, { pollIntervalMs: 10 }).call(
      'generate_video',
      { prompt: 'a paper boat on a stream', duration: 6 },
      context(),
    );
    expect(result.content).not.toContain('failed');
    expect(result.media?.[0]?.path).toBe('generated/video-001.mp4');
    expect(openai.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/videos',
      'GET /v1/videos/video_1',
      'GET /v1/videos/video_1/content',
    ]);
    expect(openai.requests[0]?.json).toEqual({
      model: 'sora-2',
      prompt: 'a paper boat on a stream',
      seconds: '8',
    });
    expect(openai.requests.every((r) => r.hasAuthorization)).toBe(true);
    // Sora makes 8 seconds for 6 asked, at $0.10 a second.
    expect(result.costUsd).toBeCloseTo(0.8, 9);
  });
});

describe('Azure OpenAI', () => {
  // A gateway's URL is used as written (an *.openai.azure.com endpoint gets `/v1` added by the SDK).
  it('generate_image names the deployment as the model', async () => {
    const result = await provider({
      image: {
        provider: 'azure_openai',
        model: 'my-image-deployment',
        apiKey: 'az-test-key',
        baseUrl: `${server.origin}/openai`,
      },
    }).call('generate_image', { prompt: 'a map' }, context());
    expect(result.media?.[0]?.path).toBe('generated/image-001.png');
    expect(openai.requests[0]?.path).toBe('/openai/images/generations');
    expect(openai.requests[0]?.hasAuthorization).toBe(true);
    expect(openai.requests[0]?.json).toMatchObject({ model: 'my-image-deployment', prompt: 'a map' });
    expect(result.costUsd).toBeUndefined();
  });
});

describe('xAI', () => {
  it('generate_image: grok-imagine-image through the OpenAI-shaped images endpoint', async () => {
    const result = await provider({
      image: {
        provider: 'grok',
        model: 'grok-imagine-image',
        apiKey: 'xai-test',
        baseUrl: `${server.origin}/v1`,
      },
    }).call('generate_image', { prompt: 'a comet' }, context());
    expect(result.content).not.toContain('failed');
    expect(result.media?.[0]?.path).toBe('generated/image-001.png');
    expect(openai.requests[0]?.path).toBe('/v1/images/generations');
    expect(openai.requests[0]?.json).toMatchObject({ model: 'grok-imagine-image', prompt: 'a comet' });
    expect(result.costUsd).toBe(0.02);
  });
});
