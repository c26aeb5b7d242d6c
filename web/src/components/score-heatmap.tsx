import type { RunState } from '../../../src/types/run-state.js';
import type { ScoreCell } from '../../../src/types/quality-state.js';

/** Red (0) through yellow to green (10), readable in light and dark themes. */
const heat = (score: number) => `hsl(${Math.round(Math.max(0, Math.min(10, score)) * 12)} 70% 45% / 0.45)`;

function cellLabel(agentId: string, id: string, round: number, cell: ScoreCell, mark: number | null): string {
  const below = mark !== null && cell.mean < mark ? `, below the pass mark ${mark}` : '';
  return `${agentId} on ${id} in round ${round}: ${cell.mean} of 10${below} (${cell.count} score${cell.count === 1 ? '' : 's'})`;
}

/**
 * The checklist gate's score matrix as a heatmap: one table per round, the answers' authors down,
 * the criteria across, each cell the mean score (tinted red → green, named for screen readers). Below
 * it the verdicts; in decomposition mode the subtasks. Drawn from `RunState.quality`, a reducer over
 * events, so a replayed run shows it too.
 */
export function ScoreHeatmap({ run }: { run: RunState }) {
  const q = run.quality;
  if (q.criteria.length === 0 && q.subtasks.length === 0) return null;
  const threshold = q.threshold ?? 7;
  const markOf = (tier: string) =>
    tier === 'primary' ? threshold : tier === 'standard' ? threshold - 1 : null;
  return (
    <section aria-label="Scores" className="scores">
      {q.subtasks.length > 0 && (
        <>
          <h2>Subtasks</h2>
          <ul aria-label="Subtasks" className="subtasks">
            {q.subtasks.map((s) => (
              <li key={s.id}>
                <strong>{s.id}</strong> {s.title} — <span className="muted">{s.ownerId}</span>
              </li>
            ))}
          </ul>
          {q.presenterId && <p className="muted">Presenter: {q.presenterId}</p>}
        </>
      )}
      {q.criteria.length > 0 && (
        <>
          <h2>Checklist scores</h2>
          <p className="muted">
            {q.source}
            {q.preset ? ` (${q.preset})` : ''} · pass mark {threshold}
            {q.demoted.length > 0 ? ` · demoted: ${q.demoted.join(', ')}` : ''}
          </p>
          {q.rounds.length === 0 && <p className="muted">No checklist submitted yet.</p>}
          {q.rounds.map((round) => (
            <table key={round.round} className="heatmap" aria-label={`Score matrix, round ${round.round}`}>
              <caption>
                Round {round.round} · scored by {round.scorers.join(', ')}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Answer by</th>
                  {q.criteria.map((c) => (
                    <th key={c.id} scope="col" title={`${c.text} (${c.tier})`}>
                      {c.id}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {run.agents
                  .filter((a) => round.cells[a.agentId])
                  .map((a) => (
                    <tr key={a.agentId}>
                      <th scope="row">{a.agentId}</th>
                      {q.criteria.map((c) => {
                        const cell = round.cells[a.agentId]?.[c.id];
                        if (!cell) return <td key={c.id}>–</td>;
                        return (
                          <td
                            key={c.id}
                            aria-label={cellLabel(a.agentId, c.id, round.round, cell, markOf(c.tier))}
                            title={[`scored: ${cell.labels.join(', ')}`, ...cell.reasons].join('\n')}
                            style={{ background: heat(cell.mean) }}
                          >
                            {cell.mean.toFixed(1)}
                          </td>
                        );
                      })}
                    </tr>
                  ))}
              </tbody>
            </table>
          ))}
          <ul aria-label="Criteria" className="criteria">
            {q.criteria.map((c) => (
              <li key={c.id}>
                <strong>{c.id}</strong> <span className="badge">{c.tier}</span> {c.text}
              </li>
            ))}
          </ul>
          {q.verdicts.length > 0 && (
            <ul aria-label="Verdicts" className="verdicts">
              {q.verdicts.map((v, i) => (
                <li key={i} className={`verdict-${v.verdict}`}>
                  {v.agentId}, round {v.round}: {v.verdict} — best {v.bestLabel}
                  {v.failing.length > 0 ? `, fails ${v.failing.join(', ')}` : ''}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
