import { useEffect, useState } from 'react';
import { api, type FileEntry, type FilePreview } from '../api.js';

const kb = (n: number) => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KiB`);

/** The run's folders (log with answers and deliverables, each agent's workspace) as trees with previews. */
export function Workspaces({ runId, refreshKey }: { runId: string; refreshKey: number }) {
  const [roots, setRoots] = useState<{ name: string; label: string }[]>([]);
  const [root, setRoot] = useState<string | null>(null);
  // The tree with the root it was listed from: a tab switch must never show (or open) the last root's files.
  const [listed, setListed] = useState<{ root: string; entries: FileEntry[] } | null>(null);
  const tree = listed !== null && listed.root === root ? listed.entries : [];
  const [preview, setPreview] = useState<FilePreview | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api
      .roots(runId)
      .then((list) => {
        setRoots(list);
        setRoot((current) => current ?? list[0]?.name ?? null);
      })
      .catch((e: unknown) => setError(String(e)));
  }, [runId, refreshKey]);

  useEffect(() => {
    if (!root) return;
    let current = true;
    api
      .tree(runId, root)
      // A slower answer for an earlier root or refresh must not replace a newer one.
      .then((entries) => current && setListed({ root, entries }))
      .catch((e: unknown) => current && setError(String(e)));
    return () => {
      current = false;
    };
  }, [runId, root, refreshKey]);

  const open = (path: string) => {
    if (!root) return;
    api
      .file(runId, root, path)
      .then(setPreview)
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  };

  return (
    <section aria-label="Workspaces" className="workspaces">
      <h2>Files</h2>
      {roots.length === 0 && <p className="muted">No files yet.</p>}
      <div role="tablist">
        {roots.map((r) => (
          <button key={r.name} role="tab" aria-selected={r.name === root} onClick={() => setRoot(r.name)}>
            {r.label}
          </button>
        ))}
      </div>
      <div className="files">
        <ul aria-label="File tree" className="tree">
          {tree.map((entry) => (
            <li key={entry.path} style={{ paddingLeft: `${entry.path.split('/').length - 1}em` }}>
              {entry.kind === 'folder' ? (
                <span className="folder">{entry.path.split('/').at(-1)}/</span>
              ) : (
                <>
                  <button type="button" className="link" onClick={() => open(entry.path)}>
                    {entry.path.split('/').at(-1)}
                  </button>{' '}
                  <span className="muted">{kb(entry.size)}</span>{' '}
                  {root && (
                    <a href={api.downloadUrl(runId, root, entry.path)} aria-label={`Download ${entry.path}`}>
                      ⬇
                    </a>
                  )}
                </>
              )}
            </li>
          ))}
        </ul>
        <div aria-label="File preview" role="region" className="preview">
          {error && <p role="alert">{error}</p>}
          {preview?.kind === 'text' && (
            <>
              <h3>{preview.path}</h3>
              <pre>{preview.content}</pre>
            </>
          )}
          {preview?.kind === 'binary' && (
            <p>
              {preview.path} is a binary file ({kb(preview.size)}): download it to open it.
            </p>
          )}
          {preview?.kind === 'too_large' && (
            <p>
              {preview.path} is too large to preview ({kb(preview.size)}; the limit is {kb(preview.limit)}):
              download it instead.
            </p>
          )}
        </div>
      </div>
    </section>
  );
}
