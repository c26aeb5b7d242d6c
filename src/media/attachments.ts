import path from 'node:path';
import { ConfigError } from '../types/errors.js';
import type { MediaPart } from '../types/media.js';
import {
  downloadAttachment,
  isAttachmentUrl,
  nameFromUrl,
  type DownloadOptions,
} from './fetch-attachment.js';
import { fileContent, readFileBytes } from './read-media-file.js';

/** A text file that goes with a question: its name and contents travel with the run (also to workers). */
export interface Attachment {
  name: string;
  text: string;
}

/**
 * An attachment as a caller gives it: a file path (relative to the base folder) or an http(s) URL, or
 * bytes with a name (a library caller's upload).
 */
export type AttachmentInput = string | { name: string; data: Uint8Array };

/** The question's attachments, read: text to inline into the question, media to send as parts. */
export interface LoadedAttachments {
  texts: Attachment[];
  media: MediaPart[];
}

/** Options of {@link loadAttachments}. */
export interface LoadAttachmentsOptions {
  /** Relative paths resolve against it. */
  baseDir: string;
  /** For URLs: cancellation, and which addresses they may reach (public ones unless allowed). */
  download?: Pick<DownloadOptions, 'signal' | 'guard' | 'timeoutMs'>;
}

/**
 * Reads a question's attachments: each is judged by its bytes — UTF-8 text is inlined into the question
 * (see {@link questionWithAttachments}), an image, audio, video or PDF file becomes a {@link MediaPart}
 * that agents whose model takes its kind receive as a file part.
 *
 * @throws {ConfigError} `attachment <file>: <why>` for the first file that is missing, unreadable, empty,
 * renamed (its bytes are not what its name says), of a type no model takes, or over its limit.
 */
export async function loadAttachments(
  inputs: readonly AttachmentInput[],
  options: LoadAttachmentsOptions,
): Promise<LoadedAttachments> {
  const loaded = await Promise.all(inputs.map((input) => loadOne(input, options)));
  return {
    texts: loaded.flatMap((l) => (l.type === 'text' ? [{ name: l.name, text: l.text }] : [])),
    media: loaded.flatMap((l) => (l.type === 'media' ? [l.part] : [])),
  };
}

async function loadOne(input: AttachmentInput, options: LoadAttachmentsOptions) {
  let data: Uint8Array;
  let name: string;
  let where: string | undefined;
  let shown: string;
  if (typeof input !== 'string') {
    ({ name, data } = input);
    shown = `attachment ${name}`;
  } else if (isAttachmentUrl(input)) {
    data = await downloadAttachment(input, options.download ?? {});
    name = nameFromUrl(input);
    where = input;
    shown = `attachment ${input}`;
  } else {
    where = path.resolve(options.baseDir, input);
    name = path.basename(where);
    shown = `attachment ${input}`;
    data = await readFileBytes(where, shown);
  }
  const content = await fileContent(data, {
    name,
    ...(where !== undefined ? { path: where } : {}),
    allowText: true,
  });
  if (content.type === 'refused') throw new ConfigError(`${shown}: ${content.reason}`);
  return content;
}

/** The question as the agents read it: the text attachments follow it, each fenced under its name. */
export function questionWithAttachments(question: string, attachments: readonly Attachment[]): string {
  if (attachments.length === 0) return question;
  const parts = attachments.map((a) => {
    // A fence longer than any backtick run inside, so the contents cannot close it.
    const longest = Math.max(2, ...[...a.text.matchAll(/`+/g)].map((m) => m[0].length));
    const fence = '`'.repeat(longest + 1);
    return `Attached file ${a.name}:\n${fence}\n${a.text.replace(/\n$/, '')}\n${fence}`;
  });
  return `${question}\n\n${parts.join('\n\n')}`;
}
