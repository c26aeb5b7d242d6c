import { createHash } from 'node:crypto';
import path from 'node:path';
import type { MediaPart } from '../types/media.js';

/**
 * A PNG screenshot a tool saved in the agent's workspace, as the media part its result carries: the
 * model sees the picture (where it takes images) and events record the workspace-relative path.
 */
export function pngMedia(data: Uint8Array, relativePath: string): MediaPart {
  return {
    name: path.posix.basename(relativePath),
    path: relativePath,
    mediaType: 'image/png',
    kind: 'image',
    bytes: data.byteLength,
    sha256: createHash('sha256').update(data).digest('hex'),
    data,
  };
}
