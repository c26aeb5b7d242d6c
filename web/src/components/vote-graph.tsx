import type { AgentState } from '../../../src/types/run-state.js';
import { votesText } from '../answers.js';
import type { VoteEdge } from '../run-view.js';

const SIZE = 300;
const RADIUS = 80;
const NODE = 15;

/**
 * Who voted for whom: agents on a circle with their vote count inside, an arrow per vote (a loop for an
 * agent that votes for itself; dashed and faded once it no longer counts), the winner ringed. The tally
 * and the votes are also lists, with the reason of each vote, for reading and for screen readers.
 */
export function VoteGraph({
  agents,
  votes,
  tallies,
  winnerId,
}: {
  agents: AgentState[];
  votes: VoteEdge[];
  tallies: Record<string, number>;
  winnerId: string | null;
}) {
  const center = SIZE / 2;
  const angleOf = (i: number) => (2 * Math.PI * i) / Math.max(1, agents.length) - Math.PI / 2;
  const at = (i: number) => ({
    x: center + RADIUS * Math.cos(angleOf(i)),
    y: center + RADIUS * Math.sin(angleOf(i)),
  });
  const index = new Map(agents.map((a, i) => [a.agentId, i]));
  const counted = votes.filter((v) => v.struck === null && v.counted);
  const described = counted
    .map((v) => (v.voterId === v.targetId ? `${v.voterId} for itself` : `${v.voterId} for ${v.targetId}`))
    .join(', ');
  return (
    <section aria-label="Votes" className="votes">
      <h2>Votes</h2>
      <ol className="tally" aria-label="Vote tally">
        {agents.map((a) => (
          <li key={a.agentId} className={a.agentId === winnerId ? 'winner' : ''}>
            <strong>{a.agentId}</strong> <span className="tally-count">{tallies[a.agentId] ?? 0}</span>{' '}
            <span className="muted">{votesText(tallies[a.agentId] ?? 0).replace(/^\d+ /, '')}</span>
            {a.agentId === winnerId && <span className="badge badge-winner">winner</span>}
          </li>
        ))}
      </ol>
      {agents.length > 1 && (
        <svg
          viewBox={`0 0 ${SIZE} ${SIZE}`}
          className="vote-graph"
          role="img"
          aria-label={`vote graph: ${described || 'no votes yet'}`}
        >
          <defs>
            {/* Arrowheads: for lines that end at a node's centre, and for loops that end at its edge. */}
            {(['arrow', 'arrow-edge'] as const).flatMap((kind) =>
              (['', '-struck'] as const).map((struck) => (
                <marker
                  key={kind + struck}
                  id={kind + struck}
                  viewBox="0 0 10 10"
                  refX={kind === 'arrow' ? 10 + (NODE * 10) / 6 : 9}
                  refY="5"
                  markerWidth="6"
                  markerHeight="6"
                  orient="auto"
                >
                  <path d="M0,0 L10,5 L0,10 z" className={`arrowhead${struck}`} />
                </marker>
              )),
            )}
          </defs>
          {votes.map((v, i) => {
            const from = index.get(v.voterId) ?? 0;
            const to = index.get(v.targetId) ?? 0;
            const className = `edge${v.struck ? ' struck' : ''}${v.voterId === v.targetId ? ' self' : ''}`;
            if (from === to) {
              // A self-vote: a loop leaving and re-entering the node on its outer side.
              const p = at(from);
              const a = angleOf(from);
              const point = (da: number, r: number) =>
                `${(p.x + r * Math.cos(a + da)).toFixed(1)},${(p.y + r * Math.sin(a + da)).toFixed(1)}`;
              return (
                <path
                  key={i}
                  d={`M${point(-0.55, NODE)} C${point(-0.75, 52)} ${point(0.75, 52)} ${point(0.55, NODE + 1)}`}
                  className={className}
                  fill="none"
                  markerEnd={`url(#arrow-edge${v.struck ? '-struck' : ''})`}
                />
              );
            }
            const a = at(from);
            const b = at(to);
            return (
              <line
                key={i}
                x1={a.x}
                y1={a.y}
                x2={b.x}
                y2={b.y}
                className={className}
                markerEnd={`url(#arrow${v.struck ? '-struck' : ''})`}
              />
            );
          })}
          {agents.map((a, i) => {
            const p = at(i);
            const angle = angleOf(i);
            // The name sits outside the node, past its self-vote loop when it has one.
            const looped = votes.some((v) => v.voterId === a.agentId && v.targetId === a.agentId);
            const out = looped ? 58 : NODE + 10;
            const cos = Math.cos(angle);
            return (
              <g key={a.agentId} className={a.agentId === winnerId ? 'winner' : ''}>
                <circle cx={p.x} cy={p.y} r={NODE} className={`node status-${a.status}`} />
                <text x={p.x} y={p.y + 4} textAnchor="middle" className="node-count">
                  {tallies[a.agentId] ?? 0}
                </text>
                <text
                  x={p.x + out * cos}
                  y={p.y + out * Math.sin(angle) + 4}
                  textAnchor={cos > 0.3 ? 'start' : cos < -0.3 ? 'end' : 'middle'}
                  className="node-label"
                >
                  {a.agentId}
                </text>
              </g>
            );
          })}
        </svg>
      )}
      <ul className="vote-list" aria-label="Vote list">
        {votes.map((v, i) => {
          const target = v.voterId === v.targetId ? 'itself' : v.targetId;
          const text = `${v.voterId} → ${target} (${v.label}): ${v.reason}`;
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
