import type { MediaKind, MediaRef } from '../types/media.js';
import { formatBytes } from './media-limits.js';

const ICONS: Readonly<Record<MediaKind, string>> = {
  image: '🖼',
  audio: '🔊',
  video: '🎬',
  document: '📄',
};

/**
 * One media file as views name it: `🖼 chart.png (image, 12 KB)`. The name is the file's own and may
 * hold anything: a terminal view makes the line inert as it does all model and tool text.
 */
export function mediaLabel(ref: Pick<MediaRef, 'name' | 'kind' | 'bytes'>): string {
  return `${ICONS[ref.kind]} ${ref.name} (${ref.kind}, ${formatBytes(ref.bytes)})`;
}
