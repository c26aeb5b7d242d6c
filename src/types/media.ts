import { z } from 'zod';

/**
 * What a model may be shown besides text. `document` is a PDF (the one document type the vendors
 * take as a file part); other files travel as text or stay in the workspace.
 */
export const MEDIA_KINDS = ['image', 'audio', 'video', 'document'] as const;
export const MediaKindSchema = z.enum(MEDIA_KINDS);
export type MediaKind = z.infer<typeof MediaKindSchema>;

/**
 * A media file as events, logs and views record it: by path and hash, never by its bytes, so a logged
 * run stays small and replays show the same file.
 */
export const MediaRefSchema = z.object({
  /** The file's name as people see it (`photo.png`). */
  name: z.string().min(1),
  /**
   * Where the file is: absolute for the user's attachments, relative to the agent's workspace for
   * files an agent read or made. Absent for media that arrived without a file (a server request).
   */
  path: z.string().optional(),
  /** IANA media type, from the file's bytes (not its name). */
  mediaType: z.string().min(1),
  kind: MediaKindSchema,
  bytes: z.number().int().nonnegative(),
  /** Lower-case hex SHA-256 of the bytes. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type MediaRef = z.infer<typeof MediaRefSchema>;

/** A media file ready to go to a model: its reference and its bytes (which never enter an event). */
export interface MediaPart extends MediaRef {
  readonly data: Uint8Array;
}

/** The reference of a part: what may be logged. */
export function mediaRef(part: MediaPart | MediaRef): MediaRef {
  return {
    name: part.name,
    ...(part.path !== undefined ? { path: part.path } : {}),
    mediaType: part.mediaType,
    kind: part.kind,
    bytes: part.bytes,
    sha256: part.sha256,
  };
}

/** The kind a media type belongs to, or null for a type no model takes as media. */
export function mediaKindOf(mediaType: string): MediaKind | null {
  const type = mediaType.toLowerCase();
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  if (type === 'application/pdf') return 'document';
  return null;
}
