import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';

/**
 * Video for OpenAI-compatible servers. OpenAI has no video part, so the AI SDK's converter refuses
 * one, but vLLM and SGLang serve video models (Qwen-VL) that take `{type: 'video_url', video_url:
 * {url}}`. A video file part therefore crosses the SDK as a text part holding a marker and its data
 * URL ({@link withVideoParts}), which {@link expandVideoParts} turns back into a `video_url` part in
 * the request body. Nothing is kept between the two steps, so a shared model stays stateless.
 */

/** Starts a text part that stands for a video; a NUL never occurs in text a person or model wrote. */
const MARKER = '\u0000massgen-video\u0000';

/** The model with each inline video file part of a user message carried as a marked text part. */
export function withVideoParts(model: LanguageModelV3): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    get provider() {
      return model.provider;
    },
    get modelId() {
      return model.modelId;
    },
    get supportedUrls() {
      return model.supportedUrls;
    },
    doGenerate: (options) => model.doGenerate(markVideos(options)),
    doStream: (options) => model.doStream(markVideos(options)),
  };
}

/** The call with each inline video file part of a user message as a marked text part. */
export function markVideos(options: LanguageModelV3CallOptions): LanguageModelV3CallOptions {
  const hasVideo = options.prompt.some(
    (m) => m.role === 'user' && m.content.some((p) => p.type === 'file' && isVideo(p.mediaType)),
  );
  if (!hasVideo) return options;
  return {
    ...options,
    prompt: options.prompt.map((message) =>
      message.role !== 'user'
        ? message
        : {
            ...message,
            content: message.content.map((part) =>
              part.type === 'file' && isVideo(part.mediaType)
                ? { type: 'text' as const, text: `${MARKER}${videoUrl(part.data, part.mediaType)}` }
                : part,
            ),
          },
    ),
  };
}

const isVideo = (mediaType: string) => mediaType.toLowerCase().startsWith('video/');

function videoUrl(data: Uint8Array | string | URL, mediaType: string): string {
  if (data instanceof URL) return data.toString();
  const base64 =
    typeof data === 'string'
      ? data
      : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
  return `data:${mediaType};base64,${base64}`;
}

/** A Chat Completions request body with every marked text part turned into a `video_url` part. */
export function expandVideoParts(body: Record<string, unknown>): Record<string, unknown> {
  const messages = body.messages;
  if (!Array.isArray(messages)) return body;
  return {
    ...body,
    messages: messages.map((message: { role?: unknown; content?: unknown }) => {
      if (message.role !== 'user') return message;
      const { content } = message;
      // The SDK sends a lone text part as a plain string.
      if (typeof content === 'string')
        return content.startsWith(MARKER) ? { ...message, content: [videoPart(content)] } : message;
      if (!Array.isArray(content)) return message;
      return {
        ...message,
        content: content.map((part: { type?: unknown; text?: unknown }) =>
          part.type === 'text' && typeof part.text === 'string' && part.text.startsWith(MARKER)
            ? videoPart(part.text)
            : part,
        ),
      };
    }),
  };
}

function videoPart(marked: string) {
  return { type: 'video_url', video_url: { url: marked.slice(MARKER.length) } };
}
