import { useEffect, useState } from 'react';
import { api, type FileEntry } from '../api.js';
import { FilePreviewView, kb } from './file-preview.js';

/** While a run is live, the folders are listed again this often (besides on every event that writes). */
const LIVE_REFRESH_MS = 4_000;

/**
 * The run's folders (log with answers and deliverables, each agent's workspace) as trees with previews.
 * They are listed again when `refreshKey` changes (an event that may have written a file), every few
 * seconds while the run is live, and on `Refresh`; an open file is shown again when its size changes.
 */
export function Workspaces({
  runId,
  refreshKey,
  live = false,
}: {
  runId: string;
  refreshKey: number;
  live?: boolean;
}) {
  const [roots, setRoots] = useState<{ name: string; label: string }[]>([]);
  const [root, setRoot] = useState<string | null>(null);
  // The tree with the root it was listed from: a tab switch must never show (or open) the last root's files.
  const [listed, setListed] = useState<{ root: string; entries: FileEntry[] } | null>(null);
  const tree = listed !== null && listed.root === root ? listed.entries : [];
  const [open, setOpen] = useState<{ root: string; path: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => setTick((t) => t + 1), LIVE_REFRESH_MS);
    return () => clearInterval(timer);
  }, [live]);

  useEffect(() => {
    let current = true;
    api
      .roots(runId)
      .then((list) => {
        if (!current) return;
        setRoots((previous) =>
          previous.length === list.length && previous.every((r, i) => r.name === list[i]?.name)
            ? previous
            : list,
        );
        setRoot((r) => r ?? list[0]?.name ?? null);
      })
      .catch((e: unknown) => current && setError(String(e)));
    return () => {
      current = false;
    };
  }, [runId, refreshKey, tick]);

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
  }, [runId, root, refreshKey, tick]);

  const opened = open && open.root === root ? tree.find((e) => e.path === open.path) : undefined;
  const files = tree.filter((e) => e.kind === 'file').length;

  return (
    <section aria-label="Workspaces" className="workspaces">
      <header className="files-header">
        <h2>Files</h2>
        <button type="button" onClick={() => setTick((t) => t + 1)}>
          Refresh files
        </button>
        {live && <span className="muted">updates while the agents work</span>}
      </header>
      {roots.length === 0 && <p className="muted">No files yet.</p>}
      <div role="tablist" aria-label="Folders" className="folder-tabs">
        {roots.map((r) => (
          <button
            key={r.name}
            role="tab"
            aria-selected={r.name === root}
            onClick={() => {
              setRoot(r.name);
              setOpen(null);
            }}
          >
            {r.label}
          </button>
        ))}
      </div>
      <div className="files">
        <ul aria-label="File tree" className="tree">
          {root && tree.length > 0 && files === 0 && <li className="muted">No files yet.</li>}
          {tree.map((entry) => (
            <li key={entry.path} style={{ paddingLeft: `${entry.path.split('/').length - 1}em` }}>
              {entry.kind === 'folder' ? (
                <span className="folder">{entry.path.split('/').at(-1)}/</span>
              ) : (
                <>
                  <button
                    type="button"
                    className="link"
                    aria-current={open?.path === entry.path && open.root === root ? 'true' : undefined}
                    onClick={() => root && setOpen({ root, path: entry.path })}
                  >
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
          {opened && root && (
            <FilePreviewView
              key={`${root}/${opened.path}`}
              runId={runId}
              root={root}
              path={opened.path}
              size={opened.size}
            />
          )}
          {open && open.root === root && !opened && listed?.root === root && (
            <p className="muted">{open.path} is gone.</p>
          )}
        </div>
      </div>
    </section>
  );
}
