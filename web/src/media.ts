import type { MediaKind } from '../../src/types/media.js';
import type { UploadedFile } from '../../src/types/web-api.js';

/**
 * Media in the page: the files a user attaches to a question (sent as base64 inside the JSON start
 * request), and the address a run's recorded media is shown from (`GET /api/runs/:id/media`, by hash).
 */

/** The most files one question may carry, and their total size (the server checks both again). */
export const MAX_ATTACHMENTS = 10;
export const MAX_ATTACHMENT_BYTES = 50 * 1024 * 1024;

/** Where a recorded media file (an attachment, a tool's image) is served from while it still exists. */
export const mediaUrl = (runId: string, sha256: string): string =>
  `/api/runs/${encodeURIComponent(runId)}/media?sha256=${encodeURIComponent(sha256)}`;

const KINDS: Record<string, MediaKind> = {
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  webp: 'image',
  bmp: 'image',
  avif: 'image',
  mp3: 'audio',
  wav: 'audio',
  ogg: 'audio',
  oga: 'audio',
  opus: 'audio',
  m4a: 'audio',
  aac: 'audio',
  flac: 'audio',
  mp4: 'video',
  m4v: 'video',
  webm: 'video',
  mov: 'video',
  ogv: 'video',
};

/** The media kind a file's name suggests (for files listed by name: deliverables), or null. */
export function mediaKindOfName(name: string): MediaKind | null {
  const ext = name.includes('.') ? (name.split('.').at(-1)?.toLowerCase() ?? '') : '';
  return KINDS[ext] ?? null;
}

/** Why these files cannot be attached (count, total size), or null. Types are checked by the server. */
export function attachmentProblem(files: readonly File[]): string | null {
  if (files.length > MAX_ATTACHMENTS)
    return `${files.length} files: at most ${MAX_ATTACHMENTS} may be attached to one question`;
  const total = files.reduce((sum, f) => sum + f.size, 0);
  if (total > MAX_ATTACHMENT_BYTES)
    return `the files come to ${(total / 1048576).toFixed(1)} MB: at most ${MAX_ATTACHMENT_BYTES / 1048576} MB may be attached in all`;
  const empty = files.find((f) => f.size === 0);
  if (empty) return `${empty.name} is empty (0 bytes)`;
  return null;
}

/** A file's bytes as base64 (without the `data:` prefix `FileReader` adds). */
function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(new Error(`${file.name} could not be read`));
    reader.readAsDataURL(file);
  });
}

/** The files as the start request carries them. */
export const toUploads = (files: readonly File[]): Promise<UploadedFile[]> =>
  Promise.all(files.map(async (file) => ({ name: file.name, data: await base64Of(file) })));
