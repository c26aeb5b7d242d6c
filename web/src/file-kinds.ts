import { languageForPath } from './markdown.js';

/**
 * How the Files panel shows a file, from its name. `image`, `svg`, `pdf` and `html` are shown from the
 * server's `raw` route (an `<img>`, the browser's PDF viewer in a frame, a sandboxed frame); the others
 * from the text preview.
 */
export type FileKind = 'image' | 'svg' | 'pdf' | 'html' | 'markdown' | 'csv' | 'code' | 'text';

const IMAGE = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'bmp', 'ico', 'avif']);

export function fileKind(path: string): FileKind {
  const ext = path.split('.').at(-1)?.toLowerCase() ?? '';
  if (!path.includes('.')) return 'text';
  if (IMAGE.has(ext)) return 'image';
  if (ext === 'svg') return 'svg';
  if (ext === 'pdf') return 'pdf';
  if (ext === 'html' || ext === 'htm') return 'html';
  if (ext === 'md' || ext === 'markdown') return 'markdown';
  if (ext === 'csv' || ext === 'tsv' || ext === 'tab') return 'csv';
  if (languageForPath(path)) return 'code';
  return 'text';
}

/** Kinds shown from the file itself rather than its text. */
export const shownRaw = (kind: FileKind): boolean =>
  kind === 'image' || kind === 'svg' || kind === 'pdf' || kind === 'html';

/** The largest file the page shows from the raw route (the server refuses more). */
export const RAW_LIMIT = 25 * 1024 * 1024;
