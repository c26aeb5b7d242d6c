import { open, readdir } from 'node:fs/promises';
import path from 'node:path';
import { createFileBrowser } from '../../app/index.js';
import { sha256Hex } from '../../media/read-media-file.js';
import { contentDisposition } from './content-disposition.js';
import type { RunEvent } from '../../types/events.js';
import type { MediaRef } from '../../types/media.js';

/**
 * The media a run's events name — the user's attachments (`run.started.attachments`) and what tools
 * returned or made (`tool.call.finished.media`) — found again on disk for the page to show. A file is
 * served only when its bytes still hash to the reference's `sha256`: whatever a log says, the server
 * hands out nothing but the exact file the run recorded (an edited or replaced file is "no longer
 * available", never something else).
 */

/** The largest media file served for the page (the same bound as the `raw` route). */
export const MEDIA_LIMIT = 25 * 1024 * 1024;

/** Types shown inline as themselves; any other recorded type is sent as a download. */
const INLINE = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/bmp',
  'image/avif',
  'application/pdf',
]);
/** Types that may carry script (SVG): shown only under a CSP sandbox, as `raw` does. */
const ACTIVE = new Set(['image/svg+xml']);

/** A media reference found in a run's events, with the agent whose tool made it (null: an attachment). */
export interface FoundMedia {
  ref: MediaRef;
  agentId: string | null;
}

/** The reference with this hash in the run's events (attachments first), or null. */
export function findMedia(events: readonly RunEvent[], sha256: string): FoundMedia | null {
  for (const event of events) {
    if (event.type === 'run.started') {
      const ref = event.attachments?.find((a) => a.sha256 === sha256);
      if (ref) return { ref, agentId: null };
    } else if (event.type === 'tool.call.finished') {
      const ref = event.media?.find((m) => m.sha256 === sha256);
      if (ref) return { ref, agentId: event.agentId };
    }
  }
  return null;
}

/** Where to look for a run's media: the live workspaces, the delivered copies, the workspace folders. */
export interface MediaPlaces {
  /** The run's log folder (its `final/<agent>/workspace/` holds the winner's delivered files). */
  logDir: string | null;
  /** Live agents' workspaces, by agent id. */
  workspaces: Readonly<Record<string, string>>;
  /** `<cwd>/.massgen/workspaces`: a past run's workspaces, when they were kept. */
  workspacesRoot: string;
}

/** The folders a tool's relative path may be under, most likely first. */
async function foldersFor(agentId: string, places: MediaPlaces): Promise<string[]> {
  const dirs: string[] = [];
  const live = places.workspaces[agentId];
  if (live) dirs.push(live);
  if (places.logDir) dirs.push(path.join(places.logDir, 'final', agentId, 'workspace'));
  try {
    for (const entry of await readdir(places.workspacesRoot, { withFileTypes: true }))
      if (entry.isDirectory()) dirs.push(path.join(places.workspacesRoot, entry.name));
  } catch {
    // No kept workspaces.
  }
  return [...new Set(dirs)];
}

/** An absolute file's bytes when it is a regular file of exactly `bytes` bytes, else null. */
async function readExactly(file: string, bytes: number): Promise<Uint8Array | null> {
  try {
    const handle = await open(file, 'r');
    try {
      const stat = await handle.stat();
      if (!stat.isFile() || stat.size !== bytes) return null;
      return new Uint8Array(await handle.readFile());
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

/**
 * The recorded file's bytes, or null when no file with its exact bytes is left (deleted, edited, or a
 * reference without a path). Relative paths are read through the same containment check as the Files
 * panel (symlinks resolved, nothing outside the folder).
 */
export async function readMedia(found: FoundMedia, places: MediaPlaces): Promise<Uint8Array | null> {
  const { ref } = found;
  if (ref.path === undefined || ref.bytes > MEDIA_LIMIT) return null;
  const matches = (data: Uint8Array | null) =>
    data !== null && data.byteLength === ref.bytes && sha256Hex(data) === ref.sha256 ? data : null;
  if (path.isAbsolute(ref.path)) return matches(await readExactly(ref.path, ref.bytes));
  if (found.agentId === null) return null;
  for (const dir of await foldersFor(found.agentId, places)) {
    try {
      const data = await createFileBrowser(dir).readAtMost(ref.path, MEDIA_LIMIT);
      const ok = matches(data ? new Uint8Array(data) : null);
      if (ok) return ok;
    } catch {
      // Not in this folder (or refused): try the next.
    }
  }
  return null;
}

/**
 * The headers a media file is served with: its recorded type (sniffed from its bytes when it was
 * read) when that is one shown inline, never sniffed again by the browser; SVG under a CSP sandbox;
 * anything else (HTML included) as a download, so an uploaded file is never rendered as a page.
 */
export function mediaHeaders(ref: MediaRef): Record<string, string> {
  const type = ref.mediaType.toLowerCase().split(';')[0]?.trim() ?? '';
  const playable = type.startsWith('audio/') || type.startsWith('video/');
  const inline = INLINE.has(type) || playable || ACTIVE.has(type);
  return {
    'Content-Type': inline ? type : 'application/octet-stream',
    'Content-Disposition': contentDisposition(inline ? 'inline' : 'attachment', ref.name),
    'X-Content-Type-Options': 'nosniff',
    // Asked again each time, so a file that is gone shows as gone (as `raw` does).
    'Cache-Control': 'no-store',
    'X-Frame-Options': 'SAMEORIGIN',
    'Content-Security-Policy': ACTIVE.has(type)
      ? "sandbox; default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'"
      : "default-src 'none'; img-src 'self'; media-src 'self'; object-src 'self'; frame-ancestors 'self'",
  };
}
