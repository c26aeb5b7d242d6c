import type { TimelineItem } from '../run-view.js';

/** Coordination events in order, with the time since the run started. */
export function Timeline({ items, start }: { items: TimelineItem[]; start: number | null }) {
  return (
    <section aria-label="Timeline" className="timeline">
      <h2>Timeline</h2>
      <ol>
        {items.map((item) => (
          <li key={item.seq}>
            <span className="muted">
              {(((item.ts - (start ?? item.ts)) / 1000).toFixed(1) + 's').padStart(6)}
            </span>{' '}
            <strong>{item.agentId ?? '—'}</strong> {item.text}
          </li>
        ))}
      </ol>
    </section>
  );
}
