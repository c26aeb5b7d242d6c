import type { MediaKind } from '../../types/media.js';

/**
 * Media a fake server received, in one vendor-neutral form: each dialect reads its vendor's media
 * parts (OpenAI `image_url`/`input_audio`/`file`, Responses `input_image`/`input_file`, Anthropic
 * `image`/`document` blocks, Gemini `inlineData`/`fileData`) and decodes their base64, so a test
 * compares what arrived with the file byte for byte, and a handler can answer by what it was shown.
 */
export interface FakeMedia {
  kind: MediaKind | 'other';
  /** As the request said it (`image/png`; `audio/wav` from OpenAI's `format: wav`). */
  mediaType: string;
  /** The decoded bytes; empty when the part only points at a file (`uri`, a file id). */
  data: Uint8Array;
  filename?: string;
  /** Where the file is when sent by reference: Gemini `fileData.fileUri`, an `http(s)` image URL, a file id. */
  uri?: string;
  /** The vendor's part type, e.g. `image_url`, `input_audio`, `document`, `inlineData`. */
  part: string;
  /** Which message (index in the request's message list) carried it, and its role there. */
  messageIndex: number;
  role: string;
  /** True when the part sat inside a tool result (Anthropic `tool_result` content, Responses tool output). */
  inToolResult: boolean;
}

type Where = Pick<FakeMedia, 'messageIndex' | 'role' | 'inToolResult'>;
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function kindOf(mediaType: string): FakeMedia['kind'] {
  const type = mediaType.toLowerCase();
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  if (type === 'application/pdf') return 'document';
  return 'other';
}

function fromBase64(base64: string): Uint8Array {
  return new Uint8Array(Buffer.from(base64, 'base64'));
}

/** A `data:<type>;base64,<data>` URL decoded, or a reference to a URL that is not one. */
function fromUrl(url: string): { mediaType: string | undefined; data: Uint8Array; uri?: string } {
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  if (match === null) return { mediaType: undefined, data: new Uint8Array(), uri: url };
  return { mediaType: match[1]!, data: fromBase64(match[2]!) };
}

function media(
  part: string,
  where: Where,
  mediaType: string,
  data: Uint8Array,
  extra: { filename?: string | undefined; uri?: string | undefined } = {},
): FakeMedia {
  return {
    kind: kindOf(mediaType),
    mediaType,
    data,
    ...(extra.filename === undefined ? {} : { filename: extra.filename }),
    ...(extra.uri === undefined ? {} : { uri: extra.uri }),
    part,
    ...where,
  };
}

/** OpenAI's `input_audio.format` as a media type. */
const AUDIO_FORMATS: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mpeg' };

/** One OpenAI Chat Completions content part (`image_url`, `input_audio`, `file`, vLLM's `video_url`). */
function openAIChatPart(part: Json, where: Where): FakeMedia | null {
  if (part.type === 'image_url' || part.type === 'video_url') {
    const holder = part[part.type];
    const url = str(isObject(holder) ? holder.url : holder) ?? '';
    const { mediaType, data, uri } = fromUrl(url);
    const fallback = part.type === 'image_url' ? 'image/*' : 'video/*';
    return media(part.type, where, mediaType ?? fallback, data, { uri });
  }
  if (part.type === 'input_audio' && isObject(part.input_audio)) {
    const format = str(part.input_audio.format) ?? '';
    return media(
      'input_audio',
      where,
      AUDIO_FORMATS[format] ?? `audio/${format}`,
      fromBase64(str(part.input_audio.data) ?? ''),
    );
  }
  if (part.type === 'file' && isObject(part.file)) {
    const fileId = str(part.file.file_id);
    if (fileId !== undefined)
      return media('file', where, 'application/octet-stream', new Uint8Array(), { uri: fileId });
    const { mediaType, data } = fromUrl(str(part.file.file_data) ?? '');
    return media('file', where, mediaType ?? 'application/octet-stream', data, {
      filename: str(part.file.filename),
    });
  }
  return null;
}

/** Media in OpenAI Chat Completions `messages`. */
export function openAIChatMedia(messages: readonly Json[]): FakeMedia[] {
  return messages.flatMap((message, messageIndex) => {
    if (!Array.isArray(message.content)) return [];
    const where = { messageIndex, role: str(message.role) ?? '', inToolResult: message.role === 'tool' };
    return (message.content as unknown[]).flatMap((part) =>
      isObject(part) ? (openAIChatPart(part, where) ?? []) : [],
    );
  });
}

/** One OpenAI Responses content part (`input_image`, `input_file`). */
function openAIResponsesPart(part: Json, where: Where): FakeMedia | null {
  if (part.type === 'input_image') {
    const fileId = str(part.file_id);
    if (fileId !== undefined)
      return media('input_image', where, 'image/*', new Uint8Array(), { uri: fileId });
    const { mediaType, data, uri } = fromUrl(str(part.image_url) ?? '');
    return media('input_image', where, mediaType ?? 'image/*', data, { uri });
  }
  if (part.type === 'input_file') {
    const reference = str(part.file_id) ?? str(part.file_url);
    if (reference !== undefined)
      return media('input_file', where, 'application/octet-stream', new Uint8Array(), { uri: reference });
    const { mediaType, data } = fromUrl(str(part.file_data) ?? '');
    return media('input_file', where, mediaType ?? 'application/octet-stream', data, {
      filename: str(part.filename),
    });
  }
  return null;
}

/** Media in an OpenAI Responses `input` (message content and `function_call_output` content). */
export function openAIResponsesMedia(items: readonly Json[]): FakeMedia[] {
  return items.flatMap((item, messageIndex) => {
    const inToolResult = item.type === 'function_call_output';
    const parts = inToolResult ? item.output : item.content;
    if (!Array.isArray(parts)) return [];
    const where = { messageIndex, role: str(item.role) ?? str(item.type) ?? '', inToolResult };
    return (parts as unknown[]).flatMap((part) =>
      isObject(part) ? (openAIResponsesPart(part, where) ?? []) : [],
    );
  });
}

/** One Anthropic content block (`image`, `document`), or the media inside a `tool_result`. */
function anthropicBlock(block: Json, where: Where): FakeMedia[] {
  if (block.type === 'tool_result' && Array.isArray(block.content)) {
    return (block.content as unknown[]).flatMap((inner) =>
      isObject(inner) ? anthropicBlock(inner, { ...where, inToolResult: true }) : [],
    );
  }
  if ((block.type !== 'image' && block.type !== 'document') || !isObject(block.source)) return [];
  const source = block.source;
  const title = str(block.title);
  if (source.type === 'base64')
    return [
      media(block.type, where, str(source.media_type) ?? '', fromBase64(str(source.data) ?? ''), {
        filename: title,
      }),
    ];
  if (source.type === 'url')
    return [
      media(block.type, where, block.type === 'image' ? 'image/*' : 'application/pdf', new Uint8Array(), {
        uri: str(source.url),
        filename: title,
      }),
    ];
  if (source.type === 'text')
    return [
      media(
        block.type,
        where,
        str(source.media_type) ?? 'text/plain',
        new TextEncoder().encode(str(source.data) ?? ''),
        { filename: title },
      ),
    ];
  return [];
}

/** Media in Anthropic Messages `messages` (user content and tool results). */
export function anthropicMedia(messages: readonly Json[]): FakeMedia[] {
  return messages.flatMap((message, messageIndex) => {
    if (!Array.isArray(message.content)) return [];
    const where = { messageIndex, role: str(message.role) ?? '', inToolResult: false };
    return (message.content as unknown[]).flatMap((block) =>
      isObject(block) ? anthropicBlock(block, where) : [],
    );
  });
}

/** Media in Gemini `contents`: `inlineData` (decoded) and `fileData` (by URI), also inside function responses. */
export function geminiMedia(contents: readonly Json[]): FakeMedia[] {
  return contents.flatMap((content, messageIndex) => {
    if (!Array.isArray(content.parts)) return [];
    const role = str(content.role) ?? 'user';
    const found: FakeMedia[] = [];
    const visit = (part: Json, inToolResult: boolean) => {
      const where = { messageIndex, role, inToolResult };
      if (isObject(part.inlineData)) {
        found.push(
          media(
            'inlineData',
            where,
            str(part.inlineData.mimeType) ?? '',
            fromBase64(str(part.inlineData.data) ?? ''),
          ),
        );
      } else if (isObject(part.fileData)) {
        found.push(
          media('fileData', where, str(part.fileData.mimeType) ?? '', new Uint8Array(), {
            uri: str(part.fileData.fileUri),
          }),
        );
      } else if (isObject(part.functionResponse) && Array.isArray(part.functionResponse.parts)) {
        for (const inner of part.functionResponse.parts as unknown[]) if (isObject(inner)) visit(inner, true);
      }
    };
    for (const part of content.parts as unknown[]) if (isObject(part)) visit(part, false);
    return found;
  });
}
