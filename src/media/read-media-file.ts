import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../types/errors.js';
import type { MediaKind, MediaPart } from '../types/media.js';
import { errorCode } from '../util/guards.js';
import {
  DEFAULT_MEDIA_MAX_BYTES,
  MAX_ANY_MEDIA_BYTES,
  MAX_TEXT_ATTACHMENT_BYTES,
  aKind,
  formatBytes,
  kindNoun,
} from './media-limits.js';
import { MODEL_IMAGE_TYPE_NAMES, kindFromName, looksLike, sniffMedia } from './sniff-media.js';

/** What a file turned out to be: text, a media part, or why it can be neither. */
export type FileContent =
  | { type: 'text'; name: string; text: string }
  | { type: 'media'; part: MediaPart }
  /** `reason` completes a sentence that starts with the file's name (`photo.png: <reason>`). */
  | { type: 'refused'; reason: string };

/** How {@link fileContent} judges bytes. */
export interface FileContentOptions {
  /** The file's name as people see it. */
  name: string;
  /** The {@link MediaRef.path} to record (absolute, workspace-relative or a URL). */
  path?: string;
  /** Whether UTF-8 text is an answer (attachments inline it) or a refusal (`read_media`). */
  allowText: boolean;
  /** Limits by kind below the defaults (the smallest applies). */
  maxBytes?: Partial<Record<MediaKind, number>>;
}

/** SHA-256 of bytes, lower-case hex (how events and logs name a file's content). */
export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The refusal of text where media is wanted. */
export const TEXT_NOT_MEDIA = 'it is a text file, not an image, audio, video or PDF file';

const CONTEXT_PATH_HINT =
  'give it as a context path (orchestrator.context_paths) so the agents can work on it with their tools';

/**
 * Judges a file's bytes by their content: a media part a model takes (type sniffed, size checked
 * against the kind's limit), UTF-8 text, or a refusal in words a user can act on — an empty file, a
 * renamed file (`photo.png` holding text), an image type no model takes, a file over the limit.
 */
export async function fileContent(data: Uint8Array, options: FileContentOptions): Promise<FileContent> {
  const refused = (reason: string): FileContent => ({ type: 'refused', reason });
  if (data.length === 0) return refused('the file is empty (0 bytes): was it still being written?');
  const sniffed = await sniffMedia(data);
  const promised = kindFromName(options.name);
  if (sniffed.type === 'media') {
    const limit = Math.min(
      DEFAULT_MEDIA_MAX_BYTES[sniffed.kind],
      options.maxBytes?.[sniffed.kind] ?? Number.POSITIVE_INFINITY,
    );
    if (data.length > limit)
      return refused(
        `${formatBytes(data.length)} is over the ${formatBytes(limit)} limit for ${kindNoun(sniffed.kind, true)}: shrink it, or ${CONTEXT_PATH_HINT}`,
      );
    const part: MediaPart = {
      name: options.name,
      ...(options.path !== undefined ? { path: options.path } : {}),
      mediaType: sniffed.mediaType,
      kind: sniffed.kind,
      bytes: data.length,
      sha256: sha256Hex(data),
      data,
    };
    return { type: 'media', part };
  }
  if (sniffed.type === 'other' && sniffed.kind === 'image')
    return refused(
      `${sniffed.looksLike} is not an image type models take: convert it to ${MODEL_IMAGE_TYPE_NAMES}`,
    );
  if (promised !== null)
    return refused(
      `its bytes are not ${aKind(promised)} (looks like ${looksLike(sniffed)}): check it is the file you meant${sniffed.type === 'text' ? ', or give a text file a text name (.txt, .md) to attach it as text' : ''}`,
    );
  if (sniffed.type === 'text') {
    if (!options.allowText) return refused(TEXT_NOT_MEDIA);
    if (data.length > MAX_TEXT_ATTACHMENT_BYTES)
      return refused(
        `a text file of ${formatBytes(data.length)} is over the ${formatBytes(MAX_TEXT_ATTACHMENT_BYTES)} limit for text attachments (they go into every prompt): ${CONTEXT_PATH_HINT}`,
      );
    return { type: 'text', name: options.name, text: sniffed.text };
  }
  return refused(
    `it is neither text nor an image, audio, video or PDF file (looks like ${sniffed.looksLike})`,
  );
}

/** Reads a file's bytes, refusing a folder, a missing file or one too big for any kind up front. */
export async function readFileBytes(
  file: string,
  shown: string,
  maxBytes: number = MAX_ANY_MEDIA_BYTES,
): Promise<Uint8Array> {
  try {
    const info = await stat(file);
    if (info.isDirectory()) throw new ConfigError(`${shown}: is a folder, not a file`);
    if (!info.isFile()) throw new ConfigError(`${shown}: is not a regular file`);
    if (info.size > maxBytes)
      throw new ConfigError(
        `${shown}: ${formatBytes(info.size)} is over the ${formatBytes(maxBytes)} limit for any attached file: ${CONTEXT_PATH_HINT}`,
      );
    return new Uint8Array(await readFile(file));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = errorCode(error);
    const why =
      code === 'ENOENT'
        ? 'file not found'
        : code === 'EACCES' || code === 'EPERM'
          ? 'cannot be read (permission denied)'
          : code === 'ENOTDIR'
            ? 'file not found (a part of the path is a file, not a folder)'
            : `cannot be read (${code ?? String(error)})`;
    const hint =
      code === 'ENOENT' || code === 'ENOTDIR'
        ? "check the path: a relative one is read from the working folder (from the config file's folder for `attachments:` in a config)"
        : code === 'EACCES' || code === 'EPERM'
          ? 'give the user running massgen read access to it, or attach a copy'
          : undefined;
    throw new ConfigError(`${shown}: ${why}`, { cause: error, ...(hint ? { hint } : {}) });
  }
}

/**
 * Reads one media file (image, audio, video or PDF) for a model: its type sniffed from its bytes, its
 * size, its SHA-256.
 *
 * @throws {ConfigError} one line naming the file: missing, unreadable, empty, not media (with what it
 * looks like), an image type no model takes, or over the kind's limit.
 */
export async function readMediaFile(
  file: string,
  options: {
    name?: string;
    path?: string;
    shown?: string;
    maxBytes?: Partial<Record<MediaKind, number>>;
  } = {},
): Promise<MediaPart> {
  const shown = options.shown ?? file;
  const data = await readFileBytes(file, shown);
  const content = await fileContent(data, {
    name: options.name ?? path.basename(file),
    path: options.path ?? path.resolve(file),
    allowText: false,
    ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}),
  });
  if (content.type === 'media') return content.part;
  throw new ConfigError(`${shown}: ${content.type === 'refused' ? content.reason : TEXT_NOT_MEDIA}`);
}
