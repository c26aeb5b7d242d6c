import fs from 'node:fs/promises';
import path from 'node:path';
import type { CheckPath } from '../permissions/index.js';
import type { ToolContext, ToolResult } from '../../types/tool.js';
import type { MediaPart } from '../../types/media.js';
import { untilAborted } from '../../util/abort.js';
import { formatBytes } from '../../media/media-limits.js';
import { looksLike, sniffMedia } from '../../media/sniff-media.js';
import type { ToolProvider } from '../tool-provider.js';
import { imageCost, speechCost, transcriptionCost, videoCost, type Priced } from './media-pricing.js';
import { imageModel, speechModel, transcriptionModel, videoModel } from './media-models.js';
import { soraSeconds } from './openai-video-model.js';
import { MEDIA_JOBS, MEDIA_TOOL_NAMES, MEDIA_TOOLS, type MediaJob } from './media-tools.js';
import type { MediaGenerationSettings, MediaModelSettings } from './settings.js';
import { audioTypeOf, GENERATED_DIR, saveGenerated } from './workspace-output.js';

/** Files larger than this are not sent for transcription (OpenAI's own limit is 25 MB). */
const MAX_TRANSCRIBE_BYTES = 25 * 1024 * 1024;
/** Images larger than this are not sent to be edited (OpenAI's limit for gpt-image-1 inputs). */
const MAX_EDIT_IMAGE_BYTES = 50 * 1024 * 1024;

/** What OpenAI's image edits take. */
const EDITABLE_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const int = (value: unknown): number | undefined => (Number.isInteger(value) ? (value as number) : undefined);

/** Imagen takes an aspect ratio, not a size: the ratio of the asked size when it is one Imagen makes. */
const IMAGEN_RATIOS = new Set(['1:1', '3:4', '4:3', '9:16', '16:9']);
function aspectRatioOf(size: string): `${number}:${number}` | undefined {
  const [w, h] = size.split('x').map(Number) as [number, number];
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const d = gcd(w, h);
  const ratio = `${w / d}:${h / d}`;
  return IMAGEN_RATIOS.has(ratio) ? (ratio as `${number}:${number}`) : undefined;
}

/**
 * The AI SDK refuses to download from private addresses (against request forgery). A provider on this
 * machine (a local gateway, the test servers) serves its videos from itself: those, and only those, are
 * fetched here.
 */
function ownOriginDownload(baseUrl: string) {
  const origin = new URL(baseUrl).origin;
  return async ({ url, abortSignal }: { url: URL; abortSignal?: AbortSignal }) => {
    if (url.origin !== origin) throw new Error(`the video is at ${url.origin}, not the provider's ${origin}`);
    const response = await fetch(url, abortSignal ? { signal: abortSignal } : {});
    if (!response.ok) throw new Error(`downloading the video failed: HTTP ${response.status}`);
    return {
      data: new Uint8Array(await response.arrayBuffer()),
      mediaType: response.headers.get('content-type') ?? undefined,
    };
  };
}

/** The text after the files: what it cost, or why it was not counted. */
function costLine(priced: Priced): string {
  return 'note' in priced ? `Cost: not counted (${priced.note}).` : `Cost: $${priced.usd.toFixed(4)}.`;
}

/** What a job produced: the text for the model, files, and cost. */
function result(text: string, priced: Priced, media: MediaPart[] = []): ToolResult {
  return {
    content: `${text}\n${costLine(priced)}`,
    ...(media.length > 0 ? { media } : {}),
    ...(priced.usd > 0 ? { costUsd: priced.usd } : {}),
  };
}

function listFiles(media: readonly MediaPart[]): string {
  return media.map((m) => `- ${m.path} (${m.mediaType}, ${formatBytes(m.bytes)})`).join('\n');
}

/**
 * `generate_image`, `generate_speech`, `transcribe` and `generate_video` for one agent, each through the
 * AI SDK's own function on the configured provider. What is generated is saved in the agent's
 * workspace (`generated/`), comes back as the result's media (the model sees images where it takes
 * them; events record the references) and is priced from a small table into `costUsd`. A provider's
 * refusal comes back to the model as a tool error with the provider's message.
 */
export function createMediaGenerationToolProvider(
  settings: MediaGenerationSettings & {
    /** The agent's path policy: `transcribe` reads only what its file tools may read. */
    checkPath?: CheckPath;
  },
): ToolProvider {
  const jobs = MEDIA_JOBS.filter((job) => settings.models[job] !== undefined);
  const tools = jobs.map((job) => MEDIA_TOOLS[job]);
  const jobOf = (name: string): MediaJob | undefined => jobs.find((job) => MEDIA_TOOL_NAMES[job] === name);
  const ai = () => import('ai');

  const pollOptions = (model: MediaModelSettings) =>
    settings.pollIntervalMs === undefined
      ? {}
      : {
          providerOptions: {
            [{ grok: 'xai', gemini: 'google', openai: 'openai', azure_openai: 'azure' }[model.provider]]: {
              pollIntervalMs: settings.pollIntervalMs,
            },
          },
        };

  /**
   * Asked before anything is generated (and paid for): the agent's path policy must let it write into
   * `generated/` now. Its own workspace is writable in every phase, so this only bites under a policy
   * that says otherwise.
   */
  const mayWrite = async (stem: string, context: ToolContext): Promise<void> => {
    if (!settings.checkPath) return;
    const decision = await settings.checkPath(`${GENERATED_DIR}/${stem}`, 'write', context.phase);
    if (!decision.allowed) throw new Error(decision.reason);
  };

  const save = (
    stem: 'image' | 'speech' | 'video',
    data: Uint8Array,
    mediaType: string,
    kind: 'image' | 'audio' | 'video',
  ) => saveGenerated(settings.workspace, stem, data, mediaType, kind);

  const run = async (
    job: MediaJob,
    model: MediaModelSettings,
    args: Record<string, unknown>,
    context: ToolContext,
  ) => {
    const signal = context.signal;
    const by = `${model.model} (${model.provider})`;
    switch (job) {
      case 'image': {
        await mayWrite('image', context);
        const text = str(args['prompt']) ?? '';
        const size = str(args['size']);
        const n = int(args['n']) ?? 1;
        const given = Array.isArray(args['images']) ? args['images'].map((p) => str(p) ?? '') : [];
        // Every input is read (and refused) before anything is sent or paid for.
        const images: Uint8Array[] = [];
        for (const file of given) images.push(await readImage(file, context));
        const prompt = images.length > 0 ? { text, images } : text;
        const { generateImage } = await ai();
        const shape =
          size === undefined
            ? {}
            : model.provider === 'gemini'
              ? (() => {
                  const aspectRatio = aspectRatioOf(size);
                  return aspectRatio ? { aspectRatio } : {};
                })()
              : { size: size as `${number}x${number}` };
        const generated = await generateImage({
          model: await imageModel(model),
          prompt,
          n,
          ...shape,
          abortSignal: signal,
          maxRetries: 1,
        });
        const media: MediaPart[] = [];
        for (const image of generated.images) {
          media.push(await save('image', image.uint8Array, image.mediaType, 'image'));
        }
        const what = media.length === 1 ? 'an image' : `${media.length} images`;
        const from = given.length > 0 ? ` from ${given.join(', ')}` : '';
        return result(
          `Generated ${what}${from} with ${by}, saved in your workspace:\n${listFiles(media)}`,
          imageCost(model.model, size, media.length),
          media,
        );
      }
      case 'speech': {
        await mayWrite('speech', context);
        const text = str(args['text']) ?? '';
        const voice = str(args['voice']);
        const { experimental_generateSpeech } = await ai();
        const speech = await experimental_generateSpeech({
          model: await speechModel(model),
          text,
          ...(voice === undefined ? {} : { voice }),
          abortSignal: signal,
          maxRetries: 1,
        });
        const part = await save('speech', speech.audio.uint8Array, speech.audio.mediaType, 'audio');
        return result(
          `Spoke ${text.length} characters with ${by}, saved in your workspace:\n${listFiles([part])}`,
          speechCost(model.model, text.length),
          [part],
        );
      }
      case 'transcription': {
        const given = str(args['path']) ?? '';
        const file = await readAudio(given, context);
        const { experimental_transcribe } = await ai();
        const transcript = await experimental_transcribe({
          model: await transcriptionModel(model),
          audio: file.data,
          abortSignal: signal,
          maxRetries: 1,
        });
        const seconds = transcript.durationInSeconds;
        const about = [
          transcript.language ? `language ${transcript.language}` : undefined,
          seconds === undefined ? undefined : `${seconds.toFixed(1)} s`,
        ].filter(Boolean);
        return result(
          `Transcript of ${given} (${[by, ...about].join(', ')}):\n${transcript.text}`,
          transcriptionCost(model.model, seconds),
        );
      }
      case 'video': {
        await mayWrite('video', context);
        const prompt = str(args['prompt']) ?? '';
        const duration = int(args['duration']);
        const { experimental_generateVideo } = await ai();
        const generated = await experimental_generateVideo({
          model: await videoModel(model),
          prompt,
          n: 1,
          ...(duration === undefined ? {} : { duration }),
          ...pollOptions(model),
          ...(model.local && model.baseUrl ? { download: ownOriginDownload(model.baseUrl) } : {}),
          abortSignal: signal,
          maxRetries: 1,
        });
        const media: MediaPart[] = [];
        for (const video of generated.videos) {
          media.push(await save('video', video.uint8Array, video.mediaType, 'video'));
        }
        return result(
          `Generated a video with ${by}, saved in your workspace:\n${listFiles(media)}`,
          videoCost(
            model.model,
            model.provider === 'openai' && duration !== undefined ? soraSeconds(duration) : duration,
            media.length,
          ),
          media,
        );
      }
    }
  };

  /** An input file: through the agent's path policy, or else only inside the workspace. */
  const readInput = async (
    given: string,
    context: ToolContext,
    noun: string,
    maxBytes: number,
  ): Promise<Uint8Array> => {
    if (given.trim() === '') throw new Error(`give the path of ${noun} in your workspace`);
    let real: string;
    if (settings.checkPath) {
      const decision = await settings.checkPath(given, 'read', context.phase);
      if (!decision.allowed) throw new Error(decision.reason);
      real = decision.realPath;
    } else {
      const root = await fs.realpath(settings.workspace);
      real = await fs.realpath(path.resolve(root, given));
      const relative = path.relative(root, real);
      if (relative.startsWith('..') || path.isAbsolute(relative)) {
        throw new Error(`${given} is outside your workspace`);
      }
    }
    const stat = await fs.stat(real);
    if (!stat.isFile()) throw new Error(`${given} is not a file`);
    if (stat.size > maxBytes) {
      throw new Error(
        `${given} is ${formatBytes(stat.size)}; the most this takes is ${formatBytes(maxBytes)}`,
      );
    }
    return new Uint8Array(await fs.readFile(real));
  };

  /** An image to edit: a PNG, JPEG or WebP file the agent may read. */
  const readImage = async (given: string, context: ToolContext): Promise<Uint8Array> => {
    const data = await readInput(given, context, 'an image', MAX_EDIT_IMAGE_BYTES);
    const sniffed = await sniffMedia(data);
    if (sniffed.type !== 'media' || !EDITABLE_IMAGE_TYPES.has(sniffed.mediaType)) {
      throw new Error(`${given} is ${looksLike(sniffed)}, not a PNG, JPEG or WebP image`);
    }
    return data;
  };

  /** The audio file to transcribe. */
  const readAudio = async (given: string, context: ToolContext): Promise<{ data: Uint8Array }> => {
    const data = await readInput(given, context, 'an audio file', MAX_TRANSCRIBE_BYTES);
    if ((await audioTypeOf(data, given)) === null) {
      throw new Error(`${given} is not an audio file (mp3, wav, m4a, ogg, flac, webm)`);
    }
    return { data };
  };

  return {
    name: 'media_generation',
    start: async () => {},
    tools: () => tools,
    // Providers take minutes for a video and often over a minute for an image: the usual 60 s tool
    // timeout would stop (and still bill) most of them.
    minTimeoutMs: (toolName) => (jobOf(toolName) === 'video' ? 15 * 60_000 : 3 * 60_000),
    async call(toolName: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
      const job = jobOf(toolName);
      const model = job === undefined ? undefined : settings.models[job];
      if (job === undefined || model === undefined) {
        return { content: `media_generation has no tool named "${toolName}"`, isError: true };
      }
      try {
        return await untilAborted(run(job, model, args, context), context.signal);
      } catch (error) {
        if (context.signal.aborted) throw error;
        const message = error instanceof Error ? error.message : String(error);
        return { content: `${toolName} failed: ${message.split('\n')[0]?.trim() ?? message}`, isError: true };
      }
    },
    close: async () => {},
  };
}
