import { useMemo } from 'react';
import { diffStats, textDiff } from '../text-diff.js';

/** The changes between two versions of an answer: removed text struck through, added text marked. */
export function AnswerDiff({
  before,
  after,
  fromLabel,
  toLabel,
}: {
  before: string;
  after: string;
  fromLabel: string;
  toLabel: string;
}) {
  const parts = useMemo(() => textDiff(before, after), [before, after]);
  const stats = diffStats(parts);
  return (
    <section className="diff" aria-label={`Changes from ${fromLabel} to ${toLabel}`}>
      <p className="muted diff-summary">
        {fromLabel} → {toLabel}: <span className="diff-added-count">+{stats.added}</span>{' '}
        <span className="diff-removed-count">−{stats.removed}</span> words
      </p>
      <pre className="diff-body">
        {parts.map((p, i) =>
          p.kind === 'added' ? (
            <ins key={i} title={`added in ${toLabel}`}>
              {p.text}
            </ins>
          ) : p.kind === 'removed' ? (
            <del key={i} title={`removed from ${fromLabel}`}>
              {p.text}
            </del>
          ) : (
            <span key={i}>{p.text}</span>
          ),
        )}
      </pre>
    </section>
  );
}
