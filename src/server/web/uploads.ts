import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { requestMedia, RequestMediaError, safeName } from '../../app/request-media.js';
import type { MediaPart } from '../../types/media.js';
import type { UploadedFile } from '../../types/web-api.js';

/**
 * The files dropped on the web UI's question box. They travel inside the JSON body of `POST /api/runs`
 * (base64), so uploads pass the same guard as every other state change — `application/json` only,
 * which no page on another origin can send without a preflight the server refuses — and no multipart
 * parser or second upload route is needed. Each file is stored once, by hash, under
 * `.massgen/uploads/`, so the run's log can name it by path and the page can show it again in a replay.
 */

/** Strict base64 (the page's `FileReader` data, without the `data:` prefix). */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Folder the uploads are kept in. */
export const uploadsDir = (cwd: string): string => path.join(cwd, '.massgen', 'uploads');

/** One upload's bytes, or a {@link RequestMediaError} naming it. */
function decode(file: UploadedFile, index: number): Uint8Array {
  if (file.data.length % 4 !== 0 || !BASE64.test(file.data))
    throw new RequestMediaError(
      `attachments[${index}] ("${safeName(file.name)}") is not base64 data`,
      false,
      'send the file’s bytes as base64, without a data: prefix',
    );
  return new Uint8Array(Buffer.from(file.data, 'base64'));
}

/**
 * The uploads as media parts, each stored at `.massgen/uploads/<sha256>/<name>` (its `path`).
 * @throws {RequestMediaError} for a file that is not base64, too large, empty or of a type no model takes.
 */
export async function storeUploads(cwd: string, files: readonly UploadedFile[]): Promise<MediaPart[]> {
  const parts = await requestMedia(
    files.map((file, i) => ({ name: file.name, data: decode(file, i), where: `attachments[${i}]` })),
  );
  const stored: MediaPart[] = [];
  for (const part of parts) {
    const dir = path.join(uploadsDir(cwd), part.sha256);
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, safeName(part.name));
    await writeFile(file, part.data);
    stored.push({ ...part, path: file });
  }
  return stored;
}
