import type { StartProblem } from '../api.js';

/** Why a run cannot start: every problem at once, each with its fix. */
export function StartProblems({ problems }: { problems: StartProblem[] }) {
  return (
    <section aria-label="Cannot start the run" className="start-problems">
      {/* Announced at once; the region keeps its name for finding it again. */}
      <div role="alert">
        <h2>
          The run cannot start: {problems.length} problem{problems.length === 1 ? '' : 's'}
        </h2>
        <ul>
          {problems.map((p, i) => (
            <li key={i}>
              {/* The agent, unless the message already names it. */}
              {p.agentId && !p.message.includes(p.agentId) && <strong>{p.agentId}: </strong>}
              {p.message}
              {p.key && !p.message.includes(p.key) && <code> {p.key}</code>}
              {p.hint && <p className="hint">Fix: {p.hint}</p>}
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
