import type { ToolDefinition } from '../../types/messages.js';

/** The four media tools, by the job each does. */
export const MEDIA_JOBS = ['image', 'speech', 'transcription', 'video'] as const;
export type MediaJob = (typeof MEDIA_JOBS)[number];

/** The tool name of each job, as the model sees it. */
export const MEDIA_TOOL_NAMES = {
  image: 'generate_image',
  speech: 'generate_speech',
  transcription: 'transcribe',
  video: 'generate_video',
} as const satisfies Record<MediaJob, string>;
export type MediaToolName = (typeof MEDIA_TOOL_NAMES)[MediaJob];

/**
 * The tools' definitions. None is read-only: each spends money at a provider and writes a file, so
 * planning mode defers them like any other action.
 */
export const MEDIA_TOOLS: Readonly<Record<MediaJob, ToolDefinition>> = Object.freeze({
  image: {
    name: 'generate_image',
    description:
      'Generate images from a text prompt, or edit images of your workspace by giving their paths in images (the prompt says what to change). They are saved in your workspace (generated/) and shown to you; the paths are returned. Each image costs money: ask for more than one only when you need them.',
    parameters: {
      type: 'object',
      properties: {
        prompt: { type: 'string', description: 'What the image shows, in detail' },
        size: {
          type: 'string',
          pattern: '^[0-9]{2,4}x[0-9]{2,4}$',
          description: 'Width x height in pixels, e.g. 1024x1024 (the model may allow only some sizes)',
        },
        n: { type: 'integer', minimum: 1, maximum: 4, description: 'How many images (default 1)' },
        images: {
          type: 'array',
          items: { type: 'string' },
          minItems: 1,
          maxItems: 4,
          description:
            'Images to edit or combine (PNG, JPEG or WebP), relative to your workspace; leave out for new images',
        },
      },
      required: ['prompt'],
      additionalProperties: false,
    },
  },
  speech: {
    name: 'generate_speech',
    description:
      'Read a text aloud: the audio file is saved in your workspace (generated/) and its path returned.',
    parameters: {
      type: 'object',
      properties: {
        text: { type: 'string', description: 'The words to speak' },
        voice: { type: 'string', description: "The provider's voice name, e.g. alloy, coral, nova" },
      },
      required: ['text'],
      additionalProperties: false,
    },
  },
  transcription: {
    name: 'transcribe',
    description: 'Transcribe an audio file of your workspace (mp3, wav, m4a, ogg, flac, webm) to text.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The audio file, relative to your workspace' },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  video: {
    name: 'generate_video',
    description:
      'Generate a short video from a text prompt; it is saved in your workspace (generated/) and its path returned. Takes minutes and costs money per second of video.',
    parameters: {
      type: 'object',
      properties: {
        prompt: { type: 'string', description: 'What happens in the video, in detail' },
        duration: { type: 'integer', minimum: 1, maximum: 60, description: 'Length in seconds' },
      },
      required: ['prompt'],
      additionalProperties: false,
    },
  },
});
