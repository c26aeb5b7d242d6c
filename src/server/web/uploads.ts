import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { requestMedia, RequestMediaError, safeName } from '../../app/request-media.js';
import type { MediaPart } from '../../types/media.js';
import type { UploadedFile } from '../../types/web-api.js';

/**
 * The files dropped on the web UI's question box. They travel inside the JSON body of `POST /api/runs`
 * (base64), so uploads pass the same guard as every other state change — `application/json` only,
 * which no page on another origin can send without a preflight the server refuses — and no multipart
 * parser or second upload route is needed. They are checked first and written only once the run's
 * config has passed, into a folder of the run's own under `.massgen/uploads/` (0700, files 0600: the
 * user's files are not for other accounts on the machine), so the run's log can name them by path and
 * the page can show them while the server keeps the run; the folder goes with the run.
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
 * The uploads as media parts, checked but not yet stored (no `path`).
 * @throws {RequestMediaError} for a file that is not base64, too large, empty or of a type no model takes.
 */
export function readUploads(files: readonly UploadedFile[]): Promise<MediaPart[]> {
  return requestMedia(
    files.map((file, i) => ({ name: file.name, data: decode(file, i), where: `attachments[${i}]` })),
  );
}

/** Uploads written for one run: the folder to remove with it, and the parts with their `path`. */
export interface StoredUploads {
  dir: string;
  parts: MediaPart[];
}

/**
 * Writes checked uploads into a new folder of their own, `.massgen/uploads/<run-…>/<sha256>/<name>`:
 * the folder 0700, each file 0600. Nothing is left behind when a write fails.
 */
export async function storeUploads(cwd: string, parts: readonly MediaPart[]): Promise<StoredUploads> {
  await mkdir(uploadsDir(cwd), { recursive: true, mode: 0o700 });
  // mkdtemp makes the folder 0700 and names it so no two runs share one.
  const dir = await mkdtemp(path.join(uploadsDir(cwd), 'run-'));
  try {
    const stored: MediaPart[] = [];
    for (const part of parts) {
      const folder = path.join(dir, part.sha256);
      await mkdir(folder, { recursive: true, mode: 0o700 });
      const file = path.join(folder, safeName(part.name));
      // `wx`: a file of the same name and hash is the same file; it is not written twice.
      await writeFile(file, part.data, { mode: 0o600, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      stored.push({ ...part, path: file });
    }
    return { dir, parts: stored };
  } catch (error) {
    await removeUploads(dir);
    throw error;
  }
}

/** Removes a run's uploads folder (nothing when it is already gone). */
export const removeUploads = (dir: string): Promise<void> => rm(dir, { recursive: true, force: true });
