import { languageForPath } from './markdown.js';

/**
 * How the Files panel shows a file, from its name. `image`, `svg`, `pdf`, `html`, `audio` and `video`
 * are shown from the server's `raw` route (an `<img>`, the browser's PDF viewer in a frame, a sandboxed
 * frame, the browser's players); the others from the text preview.
 */
export type FileKind =
  'image' | 'svg' | 'pdf' | 'html' | 'audio' | 'video' | 'markdown' | 'csv' | 'code' | 'text';

const IMAGE = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'bmp', 'ico', 'avif']);
const AUDIO = new Set(['mp3', 'wav', 'ogg', 'oga', 'opus', 'm4a', 'aac', 'flac']);
const VIDEO = new Set(['mp4', 'm4v', 'webm', 'mov', 'ogv']);

export function fileKind(path: string): FileKind {
  const ext = path.split('.').at(-1)?.toLowerCase() ?? '';
  if (!path.includes('.')) return 'text';
  if (IMAGE.has(ext)) return 'image';
  if (ext === 'svg') return 'svg';
  if (ext === 'pdf') return 'pdf';
  if (AUDIO.has(ext)) return 'audio';
  if (VIDEO.has(ext)) return 'video';
  if (ext === 'html' || ext === 'htm') return 'html';
  if (ext === 'md' || ext === 'markdown') return 'markdown';
  if (ext === 'csv' || ext === 'tsv' || ext === 'tab') return 'csv';
  if (languageForPath(path)) return 'code';
  return 'text';
}

/** Kinds shown from the file itself rather than its text. */
export const shownRaw = (kind: FileKind): boolean =>
  kind === 'image' ||
  kind === 'svg' ||
  kind === 'pdf' ||
  kind === 'html' ||
  kind === 'audio' ||
  kind === 'video';

/** The largest file the page shows from the raw route (the server refuses more). */
export const RAW_LIMIT = 25 * 1024 * 1024;
