import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes `data` to `<file>.tmp-<pid>` and renames it over `file`, so a reader (or a crash) never sees
 * a half-written file. Parent folders are created as needed.
 *
 * `shouldCommit` is asked after the data is on disk and before the rename: a synchronous flush may have
 * written newer content meanwhile, and this older copy must then not replace it.
 *
 * @returns whether the file was replaced.
 */
export async function writeFileAtomic(
  file: string,
  data: string,
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
export function writeFileAtomicSync(file: string, data: string): void {
  const tmp = `${file}.tmp-${process.pid}-sync`;
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    writeFileSync(tmp, data, 'utf8');
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
