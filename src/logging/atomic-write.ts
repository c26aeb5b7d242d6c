import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes `data` to `<file>.tmp-<pid>` and renames it over `file`, so a reader (or a crash) never sees
 * a half-written file. Parent folders are created as needed. `data` may come in pieces (a big document
 * built as it is written).
 *
 * `shouldCommit` is asked after the data is on disk and before the rename: a synchronous flush may have
 * written newer content meanwhile, and this older copy must then not replace it.
 *
 * @returns whether the file was replaced.
 */
export async function writeFileAtomic(
  file: string,
  data: string | Iterable<string>,
  shouldCommit: () => boolean = () => true,
): Promise<boolean> {
  const tmp = `${file}.tmp-${process.pid}`;
  await mkdir(path.dirname(file), { recursive: true });
  try {
    await writeFile(tmp, data, 'utf8');
    if (!shouldCommit()) {
      await rm(tmp, { force: true });
      return false;
    }
    await rename(tmp, file);
    return true;
  } catch (error) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * Synchronous twin of {@link writeFileAtomic} for process-exit handlers. Its temporary name differs
 * (`.tmp-<pid>-sync`) because an asynchronous write of the same file may still be in flight.
 */
export function writeFileAtomicSync(file: string, data: string | Iterable<string>): void {
  const tmp = `${file}.tmp-${process.pid}-sync`;
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    if (typeof data === 'string') writeFileSync(tmp, data, 'utf8');
    else writePiecesSync(tmp, data);
    renameSync(tmp, file);
  } catch (error) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // The original error is the one worth reporting.
    }
    throw error;
  }
}

function writePiecesSync(file: string, pieces: Iterable<string>): void {
  const fd = openSync(file, 'w');
  try {
    for (const piece of pieces) {
      const bytes = Buffer.from(piece, 'utf8');
      for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset);
    }
  } finally {
    closeSync(fd);
  }
}
