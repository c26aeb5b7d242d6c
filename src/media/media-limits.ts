import type { MediaKind } from '../types/media.js';

const MB = 1024 * 1024;

/**
 * The largest file of each kind massgen sends to any model, before a provider's own limit
 * (`BackendFactory.mediaIn(settings).maxBytes`) narrows it. The figures follow the vendors' common
 * inline limits (20 MB images, 25 MB audio, 32 MB PDFs); video is capped lower than vendors allow
 * because the file travels inline in every request of every agent.
 */
export const DEFAULT_MEDIA_MAX_BYTES: Readonly<Record<MediaKind, number>> = {
  image: 20 * MB,
  audio: 25 * MB,
  video: 50 * MB,
  document: 32 * MB,
};

/** Text attachments are inlined into every agent's prompt: larger ones belong in a context path. */
export const MAX_TEXT_ATTACHMENT_BYTES = MB;

/** The largest file of any kind: the cap for a download whose kind is not known yet. */
export const MAX_ANY_MEDIA_BYTES = Math.max(...Object.values(DEFAULT_MEDIA_MAX_BYTES));

/** A size for people: `812 B`, `12 KB`, `3.4 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < MB) return `${Math.round(bytes / 1024)} KB`;
  const mb = bytes / MB;
  return `${mb < 10 ? mb.toFixed(1).replace(/\.0$/, '') : Math.round(mb)} MB`;
}

/** The plural noun of a kind, for messages (`images`, `PDFs`). */
export function kindNoun(kind: MediaKind, plural = false): string {
  const noun = kind === 'document' ? 'PDF' : kind === 'audio' ? 'audio file' : kind;
  return plural ? `${noun}s` : noun;
}

/** A kind with its article, for sentences (`an image`, `a PDF`). */
export function aKind(kind: MediaKind): string {
  return { image: 'an image', audio: 'an audio file', video: 'a video', document: 'a PDF' }[kind];
}
