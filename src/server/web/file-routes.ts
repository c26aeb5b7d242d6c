import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Context, Hono } from 'hono';
import { BrowseRefusedError, createFileBrowser } from '../../app/index.js';
import { describeError } from '../../types/errors.js';
import type { FileEntry, FilePreview, RootsResponse } from '../../types/web-api.js';
import { contentDisposition } from './content-disposition.js';
import { pastRunDir, readPastEvents } from './history.js';
import { findMedia, mediaHeaders, readMedia } from './media-files.js';
import type { HubRun, RunHub } from './run-hub.js';

/**
 * A run's files in the web UI (docs/web.md): the folders they can be browsed in (its log folder, each
 * agent's workspace), their tree, a preview, a file as itself for the page to show (`raw`), a media
 * file its events name (by hash), and a download. Reads only: the app's request guard and token come
 * first, and each path is checked by the file browser against its root.
 */

/** The largest file `raw` serves for the page to show (a larger one is for downloading). */
const RAW_LIMIT = 25 * 1024 * 1024;
/** Content types `raw` serves by extension; anything else is plain text. */
const RAW_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.bmp': 'image/bmp',
  '.ico': 'image/x-icon',
  '.avif': 'image/avif',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.oga': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.m4a': 'audio/mp4',
  '.aac': 'audio/aac',
  '.flac': 'audio/flac',
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.webm': 'video/webm',
  '.mov': 'video/quicktime',
  '.ogv': 'video/ogg',
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
};
/** The folders a run's files can be browsed in: its log folder and each agent's workspace. */
export function rootsOf(
  cwd: string,
  id: string,
  run: HubRun | null,
): { name: string; label: string; dir: string }[] {
  const logDir = run ? run.logDir : pastRunDir(cwd, id);
  const roots = logDir ? [{ name: 'log', label: 'Run log: answers and deliverables', dir: logDir }] : [];
  for (const [agentId, dir] of Object.entries(run?.workspaces ?? {}))
    roots.push({ name: `workspace:${agentId}`, label: `${agentId}'s workspace`, dir });
  return roots.filter((r) => existsSync(r.dir));
}

/** Adds the file routes under `/api/runs/:id/` for the live runs of `hub` and the past runs in `cwd`. */
export function registerFileRoutes(app: Hono, hub: RunHub, cwd: string): void {
  const browserFor = (c: Context) => {
    const id = c.req.param('id') ?? '';
    const root = rootsOf(cwd, id, hub.get(id) ?? null).find((r) => r.name === c.req.query('root'));
    return root ? createFileBrowser(root.dir) : null;
  };

  app.get('/api/runs/:id/roots', (c) => {
    const id = c.req.param('id');
    return c.json(
      rootsOf(cwd, id, hub.get(id) ?? null).map(({ name, label }) => ({
        name,
        label,
      })) satisfies RootsResponse,
    );
  });

  app.get('/api/runs/:id/tree', async (c) => {
    const browser = browserFor(c);
    if (!browser) return c.json({ error: 'no such folder for this run' }, 404);
    return c.json((await browser.tree()) satisfies FileEntry[]);
  });

  app.get('/api/runs/:id/file', async (c) => {
    const browser = browserFor(c);
    if (!browser) return c.json({ error: 'no such folder for this run' }, 404);
    try {
      return c.json((await browser.preview(c.req.query('path') ?? '')) satisfies FilePreview);
    } catch (error) {
      return c.json({ error: describeError(error) }, error instanceof BrowseRefusedError ? 403 : 404);
    }
  });

  // A file as itself, for the page to show: an image, the browser's PDF viewer in a frame, HTML in a
  // sandboxed frame. Its type comes from its name, never sniffed; HTML and SVG get a CSP sandbox (no
  // script, an opaque origin) even when opened on their own; only the page itself may frame it.
  app.get('/api/runs/:id/raw', async (c) => {
    const browser = browserFor(c);
    const file = c.req.query('path') ?? '';
    if (!browser) return c.json({ error: 'no such folder for this run' }, 404);
    try {
      const data = await browser.readAtMost(file, RAW_LIMIT);
      if (!data) return c.json({ error: `the file is larger than ${RAW_LIMIT >> 20} MiB: download it` }, 413);
      const ext = path.extname(file).toLowerCase();
      const type = RAW_TYPES[ext] ?? 'text/plain; charset=utf-8';
      const active = ext === '.html' || ext === '.htm' || ext === '.svg';
      return c.body(new Uint8Array(data), 200, {
        'Content-Type': type,
        'Content-Disposition': contentDisposition('inline', path.basename(file)),
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
        'X-Frame-Options': 'SAMEORIGIN',
        'Content-Security-Policy': active
          ? "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; frame-ancestors 'self'"
          : "default-src 'none'; img-src 'self'; media-src 'self'; object-src 'self'; frame-ancestors 'self'",
      });
    } catch (error) {
      return c.json({ error: describeError(error) }, error instanceof BrowseRefusedError ? 403 : 404);
    }
  });

  // A media file the run's events name (an attachment, a tool's image or recording), by its hash: served
  // only while a file with exactly those bytes is still there; never rendered as a page (media-files.ts).
  app.get('/api/runs/:id/media', async (c) => {
    const id = c.req.param('id');
    const sha256 = (c.req.query('sha256') ?? '').toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(sha256))
      return c.json({ error: '"sha256" must be the 64 hex digits of a media file the run names' }, 400);
    const live = hub.get(id);
    const logDir = live ? live.logDir : pastRunDir(cwd, id);
    const events = live ? live.events : logDir ? await readPastEvents(logDir) : null;
    if (!events) return c.json({ error: `no run with id "${id}"` }, 404);
    const found = findMedia(events, sha256);
    if (!found) return c.json({ error: `run "${id}" names no media file with that hash` }, 404);
    const data = await readMedia(found, {
      logDir,
      workspaces: live?.workspaces ?? {},
      workspacesRoot: path.join(cwd, '.massgen', 'workspaces'),
    });
    if (!data)
      return c.json({ error: `${found.ref.name} is no longer available (moved, changed or deleted)` }, 404);
    return c.body(new Uint8Array(data), 200, mediaHeaders(found.ref));
  });

  app.get('/api/runs/:id/download', async (c) => {
    const browser = browserFor(c);
    const file = c.req.query('path') ?? '';
    if (!browser) return c.json({ error: 'no such folder for this run' }, 404);
    try {
      const data = await browser.read(file);
      return c.body(new Uint8Array(data), 200, {
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': contentDisposition('attachment', path.basename(file)),
      });
    } catch (error) {
      return c.json({ error: describeError(error) }, error instanceof BrowseRefusedError ? 403 : 404);
    }
  });
}
