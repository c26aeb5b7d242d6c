import { useId, useState } from 'react';
import type { AnswerRecord } from '../../../src/types/run-state.js';
import { AnswerDiff } from './answer-diff.js';
import { MarkdownBlock } from './markdown-block.js';

/**
 * Every version of one agent's answer (`agent1.1`, `agent1.2`, …) as tabs, the chosen one rendered, and
 * what changed since the version before it.
 */
export function AnswerVersions({
  agentId,
  versions,
  id,
}: {
  agentId: string;
  versions: AnswerRecord[];
  id: string;
}) {
  // null: follow the latest version as new ones arrive.
  const [chosen, setChosen] = useState<string | null>(null);
  const [compare, setCompare] = useState(false);
  const tabs = useId();
  const index = Math.max(
    0,
    chosen === null ? versions.length - 1 : versions.findIndex((v) => v.label === chosen),
  );
  const current = versions[index];
  const previous = index > 0 ? versions[index - 1] : undefined;
  if (!current) return null;
  return (
    <section id={id} className="versions" aria-label={`Answer versions of ${agentId}`}>
      <div role="tablist" aria-label={`Versions of ${agentId}'s answer`} className="version-tabs">
        {versions.map((v, i) => (
          <button
            key={v.label}
            type="button"
            role="tab"
            id={`${tabs}-${i}`}
            aria-selected={i === index}
            aria-controls={`${tabs}-panel`}
            onClick={() => setChosen(i === versions.length - 1 ? null : v.label)}
          >
            {v.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${tabs}-panel`} aria-labelledby={`${tabs}-${index}`}>
        {previous && (
          <button
            type="button"
            className="compare"
            aria-pressed={compare}
            onClick={() => setCompare((c) => !c)}
          >
            Compare with {previous.label}
          </button>
        )}
        {compare && previous ? (
          <AnswerDiff
            before={previous.content}
            after={current.content}
            fromLabel={previous.label}
            toLabel={current.label}
          />
        ) : (
          <MarkdownBlock text={current.content} />
        )}
      </div>
    </section>
  );
}
