import { constants } from 'node:fs';
import { cp, lstat, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { inSnapshot } from './snapshot-rule.js';

/**
 * Replaces `destination` with a copy of `source` under the snapshot rule. Files are cloned
 * copy-on-write where the filesystem can (btrfs, XFS, APFS) and copied otherwise.
 */
export async function copySnapshot(source: string, destination: string): Promise<void> {
  await rm(destination, { recursive: true, force: true });
  await mkdir(path.dirname(destination), { recursive: true });
  await cp(source, destination, {
    recursive: true,
    mode: constants.COPYFILE_FICLONE,
    verbatimSymlinks: true,
    filter: async (from) => {
      if (from === source) return true;
      return inSnapshot(path.relative(source, from), await lstat(from));
    },
  });
}
