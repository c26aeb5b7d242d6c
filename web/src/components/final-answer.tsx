import { useEffect, useMemo, useState } from 'react';
import { cutOffText } from '../../../src/types/final-finish.js';
import { api } from '../api.js';
import { renderMarkdown } from '../markdown.js';
import { mediaKindOfName } from '../media.js';
import { kb } from './file-preview.js';
import { MediaView } from './media-view.js';

/** A delivered file: the winner's workspace as copied into the run's log (`final/<agent>/workspace/`). */
const DELIVERED = /^final\/[^/]+\/workspace\/(.+)$/;

/**
 * The final answer, rendered as Markdown with highlighted code, and a copy button; once the run is over
 * (`refreshKey` > 0), the images, audio and video among the winner's delivered files.
 */
export function FinalAnswer({
  text,
  presenter,
  cutOff = null,
  runId,
  refreshKey = 0,
}: {
  text: string;
  presenter: string | null;
  /** The finishReason when the answer was cut off at the model's output limit (`length`). */
  cutOff?: string | null;
  runId?: string;
  refreshKey?: number;
}) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  const [delivered, setDelivered] = useState<{ path: string; size: number }[]>([]);
  useEffect(() => {
    if (!runId || refreshKey === 0) return;
    let current = true;
    api.tree(runId, 'log').then(
      (entries) =>
        current &&
        setDelivered(
          entries.filter((e) => e.kind === 'file' && DELIVERED.test(e.path) && mediaKindOfName(e.path)),
        ),
      () => current && setDelivered([]),
    );
    return () => {
      current = false;
    };
  }, [runId, refreshKey]);
  const [copied, setCopied] = useState(false);
  return (
    <section aria-label="Final answer" className="final">
      <header>
        <h2>Final answer{presenter ? ` — ${presenter}` : ''}</h2>
        {cutOff && (
          <span className="badge badge-cut-off" role="status" title={cutOffText(cutOff)}>
            cut off ({cutOff})
          </span>
        )}
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard?.writeText(text).then(() => setCopied(true));
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </header>
      <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />
      {cutOff && <p className="warning">⚠ {cutOffText(cutOff)}</p>}
      {runId && delivered.length > 0 && (
        <div className="media-list" role="group" aria-label="Delivered media">
          {delivered.map((file) => {
            const name = DELIVERED.exec(file.path)?.[1] ?? file.path;
            return (
              <MediaView
                key={file.path}
                url={`${api.rawUrl(runId, 'log', file.path)}&v=${file.size}`}
                kind={mediaKindOfName(file.path) ?? 'image'}
                name={name}
                caption={`${name} · ${kb(file.size)}`}
              />
            );
          })}
        </div>
      )}
    </section>
  );
}
