import { formatUsd } from '../../../src/util/cost-text.js';
import type { RunView } from '../run-view.js';
import type { SubagentRun } from '../subagent-runs.js';
import { MarkdownBlock } from './markdown-block.js';

/**
 * The subagents an agent spawned, nested in its panel: one line each (state, cost, task) that opens
 * onto its run — the answer once there is one, else what its agents are writing now.
 */
export function SubagentList({ runs }: { runs: readonly SubagentRun<RunView>[] }) {
  if (runs.length === 0) return null;
  return (
    <div className="subagents" aria-label="subagents">
      {runs.map((sub) => (
        <details key={sub.id} className={`subagent status-${sub.state}`} data-testid={`subagent-${sub.id}`}>
          <summary>
            ↳ {sub.id} <span className={`badge badge-${sub.state}`}>{sub.state}</span> ·{' '}
            {formatUsd(Math.max(sub.costUsd, totalCost(sub.view)))} · {sub.task}
          </summary>
          {sub.answer ? (
            <MarkdownBlock text={sub.answer} />
          ) : (
            Object.values(sub.view.streams).map((stream) => (
              <p key={stream.agentId} className="muted">
                <strong>{stream.agentId}</strong>: {stream.turns.at(-1)?.text.slice(-600) ?? ''}
              </p>
            ))
          )}
        </details>
      ))}
    </div>
  );
}

const totalCost = (view: RunView) => view.run.agents.reduce((sum, agent) => sum + agent.costUsd, 0);
