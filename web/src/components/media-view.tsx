import { useState } from 'react';
import type { MediaKind, MediaRef } from '../../../src/types/media.js';
import { mediaUrl } from '../media.js';
import { kb } from './file-preview.js';

/**
 * One media file shown as itself: an image inline, audio and video in the browser's players, a PDF as
 * a link. A file the server no longer has (a past run's workspace was removed) says so instead.
 */
export function MediaView({
  url,
  kind,
  name,
  caption,
}: {
  url: string;
  kind: MediaKind;
  name: string;
  caption?: string;
}) {
  const [failed, setFailed] = useState<string | null>(null);
  const gone = failed === url;
  return (
    <figure className={`media media-${kind}`}>
      {gone ? (
        <p className="muted media-gone">{name}: file no longer available</p>
      ) : kind === 'image' ? (
        <a href={url} target="_blank" rel="noreferrer">
          <img src={url} alt={name} onError={() => setFailed(url)} />
        </a>
      ) : kind === 'audio' ? (
        <audio controls preload="metadata" src={url} aria-label={name} onError={() => setFailed(url)} />
      ) : kind === 'video' ? (
        <video controls preload="metadata" src={url} aria-label={name} onError={() => setFailed(url)} />
      ) : (
        <a href={url} target="_blank" rel="noreferrer">
          {name}
        </a>
      )}
      {!gone && <figcaption className="muted">{caption ?? name}</figcaption>}
    </figure>
  );
}

/** Recorded media (attachments, a tool's output) of a run, shown by hash from the server. */
export function MediaList({
  runId,
  refs,
  label,
}: {
  runId: string;
  refs: readonly MediaRef[];
  label: string;
}) {
  if (refs.length === 0) return null;
  return (
    <div className="media-list" role="group" aria-label={label}>
      {refs.map((ref) => (
        <MediaView
          key={`${ref.sha256}:${ref.name}`}
          url={mediaUrl(runId, ref.sha256)}
          kind={ref.kind}
          name={ref.name}
          caption={`${ref.name} · ${kb(ref.bytes)}`}
        />
      ))}
    </div>
  );
}
