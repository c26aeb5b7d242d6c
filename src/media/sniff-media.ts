import path from 'node:path';
import { mediaKindOf, type MediaKind } from '../types/media.js';

/**
 * Image types the vendors take as input parts (OpenAI, Anthropic, Gemini all take these four; Gemini
 * also HEIC/HEIF). Other images (BMP, TIFF, PSD, ICO…) would make a provider refuse the request.
 */
const MODEL_IMAGE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/heic',
  'image/heif',
]);

/** What a file's name promises, so a renamed file is named as such rather than read as text. */
const KIND_BY_EXTENSION: Readonly<Record<string, MediaKind>> = Object.fromEntries([
  ...['png', 'jpg', 'jpeg', 'gif', 'webp', 'heic', 'heif', 'bmp', 'tif', 'tiff', 'avif'].map((e) => [
    e,
    'image',
  ]),
  ...['mp3', 'wav', 'm4a', 'ogg', 'oga', 'flac', 'aac', 'opus', 'weba'].map((e) => [e, 'audio']),
  ...['mp4', 'mov', 'webm', 'mkv', 'avi', 'mpeg', 'mpg', 'm4v', '3gp'].map((e) => [e, 'video']),
  ['pdf', 'document'],
]) as Record<string, MediaKind>;

/** The kind a file name promises, or null for a name that promises no media. */
export function kindFromName(name: string): MediaKind | null {
  return KIND_BY_EXTENSION[path.extname(name).slice(1).toLowerCase()] ?? null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The UTF-8 text of bytes that are text (no NUL, valid UTF-8), else null. */
export function asText(data: Uint8Array): string | null {
  if (data.includes(0)) return null;
  try {
    return utf8.decode(data);
  } catch {
    return null;
  }
}

/** What the bytes are, by their content (never their name). */
export type Sniffed =
  /** A media file a model takes. */
  | { type: 'media'; mediaType: string; kind: MediaKind }
  /** UTF-8 text. */
  | { type: 'text'; text: string }
  /** Anything else: `looksLike` is the detected type, or `application/octet-stream`. */
  | { type: 'other'; looksLike: string; kind: MediaKind | null };

/**
 * Sniffs bytes with `file-type` (magic numbers). An image type no model takes counts as `other`, with
 * its kind, so the message can say which image types are taken.
 */
export async function sniffMedia(data: Uint8Array): Promise<Sniffed> {
  // Imported on first use: `file-type` and its readers are ~35 modules, ~50 ms of every run's start.
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(data);
  if (detected) {
    const kind = mediaKindOf(detected.mime);
    if (kind !== null && (kind !== 'image' || MODEL_IMAGE_TYPES.has(detected.mime)))
      return { type: 'media', mediaType: detected.mime, kind };
    // A zip or an office file is never text, even when its bytes happen to decode.
    return { type: 'other', looksLike: detected.mime, kind };
  }
  const text = asText(data);
  if (text !== null) return { type: 'text', text };
  return { type: 'other', looksLike: 'application/octet-stream', kind: null };
}

/** The short description of a sniff for messages: `text/plain`, `application/zip`. */
export function looksLike(sniffed: Sniffed): string {
  return sniffed.type === 'media'
    ? sniffed.mediaType
    : sniffed.type === 'text'
      ? 'text/plain'
      : sniffed.looksLike;
}

/** The image types models take, for messages. */
export const MODEL_IMAGE_TYPE_NAMES = 'PNG, JPEG, GIF, WebP or HEIC';
