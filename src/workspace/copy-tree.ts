import { constants } from 'node:fs';
import { cp, lstat, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from '../util/guards.js';
import { inSnapshot } from './snapshot-rule.js';

/**
 * Replaces `destination` with a copy of `source` under the snapshot rule. Files are cloned
 * copy-on-write where the filesystem can (btrfs, XFS, APFS) and copied otherwise.
 */
export async function copySnapshot(source: string, destination: string): Promise<void> {
  // The agent may still be writing (a tool's temp file appears and goes): a file gone before it is read
  // is left out, and a copy that loses a file mid-way is taken again.
  for (let attempt = 1; ; attempt++) {
    await rm(destination, { recursive: true, force: true });
    await mkdir(path.dirname(destination), { recursive: true });
    try {
      await cp(source, destination, {
        recursive: true,
        mode: constants.COPYFILE_FICLONE,
        verbatimSymlinks: true,
        filter: async (from) => {
          if (from === source) return true;
          const stats = await lstat(from).catch((error: unknown) => {
            if (errorCode(error) === 'ENOENT') return null;
            throw error;
          });
          return stats !== null && inSnapshot(path.relative(source, from), stats);
        },
      });
      return;
    } catch (error) {
      if (errorCode(error) !== 'ENOENT' || attempt >= 3) throw error;
    }
  }
}
