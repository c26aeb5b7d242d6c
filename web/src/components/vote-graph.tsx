import type { AgentState } from '../../../src/types/run-state.js';
import type { VoteEdge } from '../run-view.js';

/**
 * Who voted for whom: agents on a circle, an arrow per vote (dashed and faded once a new answer reset
 * it), and the same as a list for screen readers.
 */
export function VoteGraph({ agents, votes }: { agents: AgentState[]; votes: VoteEdge[] }) {
  const size = 220;
  const r = 80;
  const at = (i: number) => {
    const angle = (2 * Math.PI * i) / Math.max(1, agents.length) - Math.PI / 2;
    return { x: size / 2 + r * Math.cos(angle), y: size / 2 + r * Math.sin(angle) };
  };
  const index = new Map(agents.map((a, i) => [a.agentId, i]));
  return (
    <section aria-label="Votes" className="votes">
      <h2>Votes</h2>
      <svg width={size} height={size} role="img" aria-label="vote graph">
        <defs>
          <marker
            id="arrow"
            viewBox="0 0 10 10"
            refX="18"
            refY="5"
            markerWidth="6"
            markerHeight="6"
            orient="auto"
          >
            <path d="M0,0 L10,5 L0,10 z" fill="currentColor" />
          </marker>
        </defs>
        {votes.map((v, i) => {
          const from = at(index.get(v.voterId) ?? 0);
          const to = at(index.get(v.targetId) ?? 0);
          return (
            <line
              key={i}
              x1={from.x}
              y1={from.y}
              x2={to.x === from.x && to.y === from.y ? to.x + 1 : to.x}
              y2={to.y}
              className={v.struck ? 'edge struck' : 'edge'}
              markerEnd="url(#arrow)"
            />
          );
        })}
        {agents.map((a, i) => {
          const p = at(i);
          return (
            <g key={a.agentId}>
              <circle cx={p.x} cy={p.y} r={14} className={`node status-${a.status}`} />
              <text x={p.x} y={p.y + 28} textAnchor="middle">
                {a.agentId}
              </text>
            </g>
          );
        })}
      </svg>
      <ul className="vote-list">
        {votes.map((v, i) => {
          const text = `${v.voterId} → ${v.targetId} (${v.label}): ${v.reason}`;
          return (
            <li key={i}>
              {v.struck ? (
                <>
                  <s>{text}</s> <span className="muted">({v.struck})</span>
                </>
              ) : (
                text
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
