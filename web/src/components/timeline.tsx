import type { HumanMessageView, TimelineItem } from '../run-view.js';

/**
 * Coordination events in order, with the time since the run started. A steering message carries a
 * delivery mark per agent it is meant for: ✓ once the agent's next step received it, … until then.
 */
export function Timeline({
  items,
  start,
  messages = [],
  agentIds = [],
}: {
  items: TimelineItem[];
  start: number | null;
  messages?: HumanMessageView[];
  agentIds?: string[];
}) {
  return (
    <section aria-label="Timeline" className="timeline">
      <h2>Timeline</h2>
      <ol>
        {items.map((item) => {
          const message =
            item.messageSeq === undefined ? undefined : messages.find((m) => m.seq === item.messageSeq);
          return (
            <li key={item.seq} className={message ? 'message' : undefined}>
              <span className="muted">
                {(((item.ts - (start ?? item.ts)) / 1000).toFixed(1) + 's').padStart(6)}
              </span>{' '}
              <strong>{item.agentId ?? (message ? '✉' : '—')}</strong> {item.text}
              {message && <DeliveryMarks message={message} agentIds={agentIds} />}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

function DeliveryMarks({ message, agentIds }: { message: HumanMessageView; agentIds: string[] }) {
  const meant = message.target ? [message.target] : agentIds;
  const delivered = meant.filter((id) => message.deliveredTo.includes(id));
  const waiting = meant.filter((id) => !message.deliveredTo.includes(id));
  const label =
    `delivered to ${delivered.length > 0 ? delivered.join(', ') : 'nobody yet'}` +
    (waiting.length > 0 ? `; waiting: ${waiting.join(', ')}` : '');
  return (
    <span className="delivery" title={label}>
      <span className="visually-hidden"> ({label})</span>
      {meant.map((id) => (
        <span
          key={id}
          className={message.deliveredTo.includes(id) ? 'delivered' : 'pending'}
          aria-hidden="true"
        >
          {message.deliveredTo.includes(id) ? '✓' : '…'}
          {id}
        </span>
      ))}
    </span>
  );
}
