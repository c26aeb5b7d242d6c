import { useEffect, useMemo, useState } from 'react';
import { api, type FilePreview } from '../api.js';
import { parseDelimited, separatorFor } from '../csv.js';
import { fileKind, RAW_LIMIT, shownRaw, type FileKind } from '../file-kinds.js';
import { highlightCode, languageForPath } from '../markdown.js';
import { MarkdownBlock } from './markdown-block.js';

export const kb = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`;

/**
 * One file of a run's folders, shown by kind: images and SVG as images (an SVG never inline, so its
 * scripts never run), audio and video in the browser's players, PDF in the browser's own viewer, HTML in a frame with every sandbox restriction
 * (no scripts, no forms, no same-origin: the server also sends it with a CSP `sandbox`), Markdown
 * rendered and sanitized, CSV as a table, code highlighted, anything else as text.
 */
export function FilePreviewView({
  runId,
  root,
  path,
  size,
}: {
  runId: string;
  root: string;
  path: string;
  size: number;
}) {
  const kind = fileKind(path);
  const [text, setText] = useState<FilePreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [source, setSource] = useState(false);
  const needsText = !shownRaw(kind) || source;

  useEffect(() => {
    if (!needsText) return;
    let current = true;
    setError(null);
    api.file(runId, root, path).then(
      (preview) => current && setText(preview),
      (e: unknown) => current && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      current = false;
    };
  }, [runId, root, path, size, needsText]);

  // The size in the address makes the browser fetch a file again once it has grown.
  const raw = `${api.rawUrl(runId, root, path)}&v=${size}`;
  const name = path.split('/').at(-1) ?? path;
  return (
    <div className={`file-view kind-${kind}`}>
      <header>
        <h3>{path}</h3>
        <span className="muted">{kb(size)}</span>
        {(kind === 'svg' || kind === 'html' || kind === 'markdown') && (
          <button type="button" aria-pressed={source} onClick={() => setSource((s) => !s)}>
            Source
          </button>
        )}
      </header>
      {error && <p role="alert">{error}</p>}
      {shownRaw(kind) && !source ? (
        size > RAW_LIMIT ? (
          <p>
            {path} is too large to show here ({kb(size)}; the limit is {kb(RAW_LIMIT)}): download it instead.
          </p>
        ) : (
          <RawView kind={kind} url={raw} name={name} path={path} />
        )
      ) : (
        text && <TextView preview={text} kind={source ? sourceKind(kind) : kind} />
      )}
    </div>
  );
}

const sourceKind = (kind: FileKind): FileKind => (kind === 'markdown' ? 'text' : 'code');

function RawView({ kind, url, name, path }: { kind: FileKind; url: string; name: string; path: string }) {
  const [failed, setFailed] = useState(false);
  if (kind === 'image' || kind === 'svg')
    return failed ? (
      <p role="alert">{path} could not be shown as an image.</p>
    ) : (
      <img
        className="preview-image"
        src={url}
        alt={`${kind === 'svg' ? 'SVG image' : 'Image'} ${name}`}
        onError={() => setFailed(true)}
      />
    );
  if (kind === 'pdf') return <iframe className="preview-frame pdf" src={url} title={`PDF ${name}`} />;
  if (kind === 'audio' || kind === 'video')
    return failed ? (
      <p role="alert">{path} could not be played here: download it instead.</p>
    ) : kind === 'audio' ? (
      <audio
        className="preview-audio"
        controls
        src={url}
        aria-label={`Audio ${name}`}
        onError={() => setFailed(true)}
      />
    ) : (
      <video
        className="preview-video"
        controls
        src={url}
        aria-label={`Video ${name}`}
        onError={() => setFailed(true)}
      />
    );
  // HTML: every restriction of a sandbox (no scripts, forms, popups, same-origin access).
  return (
    <>
      <p className="muted">Shown without scripts, in a sandbox.</p>
      <iframe
        className="preview-frame"
        sandbox=""
        src={url}
        title={`HTML page ${name}`}
        referrerPolicy="no-referrer"
      />
    </>
  );
}

function TextView({ preview, kind }: { preview: FilePreview; kind: FileKind }) {
  if (preview.kind === 'binary')
    return (
      <p>
        {preview.path} is a binary file ({kb(preview.size)}): download it to open it.
      </p>
    );
  if (preview.kind === 'too_large')
    return (
      <p>
        {preview.path} is too large to preview ({kb(preview.size)}; the limit is {kb(preview.limit)}):
        download it instead.
      </p>
    );
  if (kind === 'markdown') return <MarkdownBlock text={preview.content} label={`Rendered ${preview.path}`} />;
  if (kind === 'csv') return <CsvTable path={preview.path} text={preview.content} />;
  if (kind === 'code') return <CodeView path={preview.path} text={preview.content} />;
  return <pre>{preview.content}</pre>;
}

function CodeView({ path, text }: { path: string; text: string }) {
  const lang = languageForPath(path) ?? (path.endsWith('.svg') || /\.html?$/.test(path) ? 'xml' : null);
  const { html, language } = useMemo(() => highlightCode(text, lang), [text, lang]);
  return (
    <pre className="code">
      {/* highlight.js escapes the text and adds only its own spans. */}
      <code
        className={`hljs${language ? ` language-${language}` : ''}`}
        dangerouslySetInnerHTML={{ __html: html }}
      />
    </pre>
  );
}

function CsvTable({ path, text }: { path: string; text: string }) {
  const { rows, truncated } = useMemo(() => parseDelimited(text, separatorFor(path), 1000), [text, path]);
  const [head, ...body] = rows;
  if (!head) return <p className="muted">{path} is empty.</p>;
  return (
    <div className="table-scroll">
      <table className="csv" aria-label={`Table ${path}`}>
        <thead>
          <tr>
            {head.map((cell, i) => (
              <th key={i} scope="col">
                {cell}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {body.map((row, r) => (
            <tr key={r}>
              {row.map((cell, i) => (
                <td key={i}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {truncated && <p className="muted">The first {rows.length} rows; download the file for the rest.</p>}
    </div>
  );
}
