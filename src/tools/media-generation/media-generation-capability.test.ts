import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/index.js';
import type { ConfigError } from '../../types/errors.js';
import { mediaGenerationToolProvider, resolveMediaModels } from './media-generation-capability.js';
import type { AgentSandbox } from '../agent-sandbox.js';

const agentOf = (backend: Record<string, unknown>) =>
  parseConfig({ agent: { id: 'a', backend: { cwd: 'ws', ...backend } } }, { env: {} }).agents[0]!;

function problemsOf(backend: Record<string, unknown>, env: Record<string, string> = {}): string[] {
  const problems: ConfigError[] = [];
  resolveMediaModels(agentOf(backend), env, { index: 0, problems });
  return problems.map((p) => `${p.path}: ${p.message} — ${p.hint}`);
}

const sandbox = (env: Record<string, string>): AgentSandbox => ({
  workspace: '/tmp',
  checkPath: async () => ({ allowed: false, reason: 'not in this test' }),
  env,
  commands: null,
  layout: () => ({}) as never,
  bwrap: null,
});

describe('media models from the config', () => {
  it("uses the agent's own provider, endpoint and key by default", () => {
    const models = resolveMediaModels(
      agentOf({
        type: 'openai',
        model: 'gpt-4o',
        base_url: 'https://gateway.example/v1',
        enable_image_generation: true,
        enable_audio_generation: true,
      }),
      { OPENAI_API_KEY: 'sk-1' },
    );
    expect(models).toEqual({
      image: {
        provider: 'openai',
        model: 'gpt-image-1',
        apiKey: 'sk-1',
        baseUrl: 'https://gateway.example/v1',
      },
      speech: {
        provider: 'openai',
        model: 'gpt-4o-mini-tts',
        apiKey: 'sk-1',
        baseUrl: 'https://gateway.example/v1',
      },
      transcription: {
        provider: 'openai',
        model: 'whisper-1',
        apiKey: 'sk-1',
        baseUrl: 'https://gateway.example/v1',
      },
    });
  });

  it('takes another provider from media_generation, with its own key variable', () => {
    const models = resolveMediaModels(
      agentOf({
        type: 'claude',
        model: 'claude-sonnet-4-5',
        enable_image_generation: true,
        enable_video_generation: true,
        media_generation: {
          image: { type: 'gemini', model: 'imagen-4.0-fast-generate-001', api_key_env: 'IMAGEN_KEY' },
          video: { type: 'gemini', model: 'veo-3.0-generate-001' },
        },
      }),
      { IMAGEN_KEY: 'k-img', GOOGLE_API_KEY: 'k-google' },
    );
    expect(models.image).toEqual({
      provider: 'gemini',
      model: 'imagen-4.0-fast-generate-001',
      apiKey: 'k-img',
    });
    expect(models.video).toEqual({ provider: 'gemini', model: 'veo-3.0-generate-001', apiKey: 'k-google' });
  });

  it('a backend with no model for a kind is a config error naming the key and the backends that have one', () => {
    expect(problemsOf({ type: 'claude', model: 'claude-sonnet-4-5', enable_audio_generation: true })).toEqual(
      [
        'agents[0].backend.enable_audio_generation: agents[0] (a): enable_audio_generation: the claude backend has no speech model — backends with one: openai, azure_openai — or set backend.media_generation.speech: {type: openai, model: gpt-4o-mini-tts}',
        'agents[0].backend.enable_audio_generation: agents[0] (a): enable_audio_generation: the claude backend has no transcription model — backends with one: openai, azure_openai, gemini — or set backend.media_generation.transcription: {type: openai, model: whisper-1}',
      ],
    );
    expect(
      problemsOf({ type: 'grok', model: 'grok-4', enable_audio_generation: true }, { XAI_API_KEY: 'x' }),
    ).toHaveLength(2);
  });

  it('Azure needs the deployment named; another provider needs its key', () => {
    expect(
      problemsOf(
        {
          type: 'azure_openai',
          model: 'gpt-4o',
          base_url: 'https://r.openai.azure.com',
          enable_image_generation: true,
        },
        { AZURE_OPENAI_API_KEY: 'az' },
      ),
    ).toEqual([
      'agents[0].backend.media_generation.image.model: agents[0] (a): enable_image_generation: name the azure_openai image generation model to use — set backend.media_generation.image.model (your deployment name)',
    ]);
    expect(
      problemsOf({
        type: 'openai',
        model: 'gpt-4o',
        enable_video_generation: true,
        media_generation: { video: { type: 'grok', model: 'grok-imagine-video' } },
      }),
    ).toEqual([
      'agents[0].backend.media_generation.video.api_key_env: agents[0] (a): media_generation.video: video generation on grok needs an API key — set the XAI_API_KEY environment variable — export XAI_API_KEY=… or put it in a .env file in this folder',
    ]);
  });

  it('an agent without a workspace cannot have media tools; one without the keys has none', () => {
    const agent = parseConfig(
      { agent: { id: 'a', backend: { type: 'openai', model: 'gpt-4o', enable_image_generation: true } } },
      { env: {} },
    ).agents[0]!;
    expect(() => mediaGenerationToolProvider(agent, undefined)).toThrow(
      /agent "a": enable_image_generation needs a workspace for the generated files/,
    );
    expect(
      mediaGenerationToolProvider(agentOf({ type: 'openai', model: 'gpt-4o' }), sandbox({})),
    ).toBeUndefined();
    const tools = mediaGenerationToolProvider(
      agentOf({ type: 'openai', model: 'gpt-4o', enable_video_generation: true }),
      sandbox({ OPENAI_API_KEY: 'sk' }),
    );
    expect(tools?.tools().map((t) => t.name)).toEqual(['generate_video']);
  });

  it('the schema rejects a key value in api_key_env and an unknown provider', () => {
    expect(() =>
      agentOf({
        type: 'openai',
        model: 'm',
        media_generation: { image: { model: 'x', api_key_env: 'sk-abc-123' } },
      }),
    ).toThrow(/environment variable name/);
    expect(() =>
      agentOf({ type: 'openai', model: 'm', media_generation: { image: { model: 'x', type: 'claude' } } }),
    ).toThrow();
  });
});
