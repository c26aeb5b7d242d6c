import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { createPathChecker, safeOpenForRead } from '../tools/permissions/index.js';
import type { FileEntry, FilePreview } from '../types/web-api.js';

export type { FileEntry, FilePreview } from '../types/web-api.js';

/** The reason a path was refused, as the tools would say it. */
export class BrowseRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BrowseRefusedError';
  }
}

const MAX_ENTRIES = 2_000;
const SKIP = new Set(['node_modules', '.git', '__pycache__', '.venv']);

/**
 * Read-only browsing of one folder (an agent's workspace, a run's log folder) for the web UI, through
 * the same path check the agents' tools use: symlinks resolved first, nothing outside `root`.
 */
export function createFileBrowser(root: string) {
  const check = createPathChecker({ workspace: root, peerSnapshots: null, contextPaths: [], readOnly: [] });
  const resolve = async (relative: string): Promise<string> => {
    const decision = await check(relative === '' ? '.' : relative, 'read', 'coordination');
    if (!decision.allowed) throw new BrowseRefusedError(decision.reason);
    return decision.realPath;
  };

  return {
    /** Every file and folder under `root` (depth-first, at most 2,000; dependency folders skipped). */
    async tree(): Promise<FileEntry[]> {
      const realRoot = await resolve('.');
      const out: FileEntry[] = [];
      const walk = async (dir: string): Promise<void> => {
        let entries;
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch {
          return;
        }
        entries.sort((a, b) => a.name.localeCompare(b.name));
        for (const entry of entries) {
          if (out.length >= MAX_ENTRIES) return;
          const full = path.join(dir, entry.name);
          const rel = path.relative(realRoot, full).split(path.sep).join('/');
          if (entry.isDirectory()) {
            if (SKIP.has(entry.name)) continue;
            out.push({ path: rel, kind: 'folder', size: 0 });
            await walk(full);
          } else if (entry.isFile()) {
            const handle = await safeOpenForRead(full).catch(() => null);
            const size = handle ? (await handle.stat()).size : 0;
            await handle?.close();
            out.push({ path: rel, kind: 'file', size });
          }
        }
      };
      await walk(realRoot);
      return out;
    },

    /** A file's text (up to `limit` bytes), or that it is binary or too large. */
    async preview(relative: string, limit = 512 * 1024): Promise<FilePreview> {
      const real = await resolve(relative);
      const handle = await safeOpenForRead(real);
      try {
        const { size } = await handle.stat();
        if (size > limit) return { kind: 'too_large', path: relative, size, limit };
        const buffer = await handle.readFile();
        if (buffer.includes(0)) return { kind: 'binary', path: relative, size };
        return { kind: 'text', path: relative, size, content: buffer.toString('utf8') };
      } finally {
        await handle.close();
      }
    },

    /** The whole file if it is at most `limit` bytes, else null (and nothing is read). */
    async readAtMost(relative: string, limit: number): Promise<Buffer | null> {
      const handle = await safeOpenForRead(await resolve(relative));
      try {
        return (await handle.stat()).size > limit ? null : await handle.readFile();
      } finally {
        await handle.close();
      }
    },

    /** The whole file, for a download. */
    async read(relative: string): Promise<Buffer> {
      const handle = await safeOpenForRead(await resolve(relative));
      try {
        return await handle.readFile();
      } finally {
        await handle.close();
      }
    },
  };
}

export type FileBrowser = ReturnType<typeof createFileBrowser>;
