import { useState } from 'react';
import { describeChange, pickNote } from '../../../src/types/change-kind.js';
import { api } from '../api.js';
import type { ReviewView } from '../permissions-view.js';

/**
 * The winner's changes to an isolated context path (`write_mode: worktree`), file by file and hunk by
 * hunk, each with its kind (a link with its target, a rename, a mode or type change), before they reach
 * the user's folder: tick the files to apply, or apply all or none. A change to be picked by name (a link
 * out of the folder) starts unticked and "Apply all" leaves it out. Once applied it says what happened —
 * applied, merged with conflicts to resolve, failed, left out — and where a kept checkout is.
 */
export function ReviewPanel({ runId, review, live }: { runId: string; review: ReviewView; live: boolean }) {
  const [chosen, setChosen] = useState<Set<string>>(
    () => new Set(review.files.filter((f) => f.pickOnly === undefined).map((f) => f.path)),
  );
  const [sent, setSent] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const waiting = live && review.awaitingReview && review.outcome === null && !sent;
  const send = (apply: 'all' | 'none' | string[]) => {
    setSent(true);
    api.review(runId, review.reviewId, apply).catch((error: unknown) => {
      setSent(false);
      setProblem(error instanceof Error ? error.message : String(error));
    });
  };
  const toggle = (file: string) =>
    setChosen((previous) => {
      const next = new Set(previous);
      if (next.has(file)) next.delete(file);
      else next.add(file);
      return next;
    });
  return (
    <section aria-label={`Review changes to ${review.contextPath}`} className="review">
      <h2>Changes to {review.contextPath}</h2>
      <p className="muted">
        from {review.agentId}
        {review.branch
          ? ` · branch ${review.branch}`
          : review.isolation === 'copy'
            ? ' · a copy of the folder'
            : ''}
        {review.diffFile ? ` · whole diff: ${review.diffFile}` : ''}
      </p>
      {review.files.map((file) => (
        <details
          key={file.path}
          className="review-file"
          open={file.hunks.length > 0 && file.hunks.length <= 8}
        >
          <summary>
            {waiting ? (
              <label>
                <input
                  type="checkbox"
                  checked={chosen.has(file.path)}
                  onChange={() => toggle(file.path)}
                  aria-label={`Apply ${file.path}`}
                />{' '}
                {file.path}
              </label>
            ) : (
              <span>{file.path}</span>
            )}{' '}
            <span className="muted">
              {describeChange(file)}
              {file.binary ? ', binary' : ` +${file.additions} −${file.deletions}`}
            </span>
            {file.pickOnly && <span className="warn"> — {pickNote(file)}</span>}
          </summary>
          {file.hunks.map((hunk, i) => (
            <pre key={i} className="hunk" aria-label={`${file.path} hunk ${i + 1}`}>
              <span className="hunk-header">{hunk.header}</span>
              {hunk.lines.split('\n').map((line, j) =>
                line === '' && hunk.lines === '' ? null : (
                  <span
                    key={j}
                    className={line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : undefined}
                  >
                    {`\n${line}`}
                  </span>
                ),
              )}
            </pre>
          ))}
        </details>
      ))}
      {waiting && (
        <div className="review-actions">
          <button type="button" onClick={() => send([...chosen])} disabled={chosen.size === 0}>
            Apply selected ({chosen.size})
          </button>{' '}
          <button type="button" onClick={() => send('all')}>
            Apply all
          </button>{' '}
          <button type="button" onClick={() => send('none')}>
            Apply none
          </button>
        </div>
      )}
      {sent && review.outcome === null && <p className="muted">Applying…</p>}
      {problem && (
        <p role="alert" className="error">
          {problem}
        </p>
      )}
      {review.outcome && (
        <ul aria-label="What was applied" className="review-outcome">
          {review.outcome.applied.length > 0 && <li>Applied: {review.outcome.applied.join(', ')}</li>}
          {review.outcome.conflicts.length > 0 && (
            <li className="warn">
              Merged with conflicts (resolve the &lt;&lt;&lt;&lt;&lt;&lt;&lt; markers):{' '}
              {review.outcome.conflicts.join(', ')}
            </li>
          )}
          {review.outcome.failed.map((f) => (
            <li key={f.path} className="error">
              Not applied: {f.path} — {f.message}
            </li>
          ))}
          {review.outcome.skipped.length > 0 && <li>Left out: {review.outcome.skipped.join(', ')}</li>}
          {review.outcome.applied.length + review.outcome.conflicts.length === 0 && (
            <li>Nothing was applied.</li>
          )}
          {review.outcome.kept && (
            <li className="warn">
              Kept {review.outcome.kept.path} (branch {review.outcome.kept.branch}); to apply by hand:
              <pre>{review.outcome.kept.commands.join('\n')}</pre>
            </li>
          )}
          <li className="muted">chosen by: {review.outcome.by}</li>
        </ul>
      )}
    </section>
  );
}
