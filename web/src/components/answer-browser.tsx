import { votesText, type CurrentAnswer } from '../answers.js';
import { MarkdownBlock } from './markdown-block.js';

/**
 * Every agent's current answer side by side (scrolling sideways when they do not fit), each with its
 * vote count, who voted for it and why; the winner's marked once decided.
 */
export function AnswerBrowser({ answers }: { answers: CurrentAnswer[] }) {
  if (answers.length === 0) return null;
  return (
    <section aria-label="Answers" className="answers">
      <h2>Answers</h2>
      <div className="answer-grid">
        {answers.map(({ answer, versions, votes, winner }) => (
          <article
            key={answer.agentId}
            className={`answer-card${winner ? ' winner' : ''}`}
            aria-label={`${answer.label} by ${answer.agentId}`}
          >
            <header>
              <h3>
                {answer.label} <span className="muted">by {answer.agentId}</span>
              </h3>
              <span className="badge badge-votes">{votesText(votes.length)}</span>
              {winner && <span className="badge badge-winner">winner</span>}
              {versions > 1 && <span className="muted"> · version {versions}</span>}
            </header>
            {votes.length > 0 ? (
              <ul className="voters" aria-label={`Votes for ${answer.label}`}>
                {votes.map((v) => (
                  <li key={v.voterId}>
                    <strong>{v.voterId === answer.agentId ? `${v.voterId} (itself)` : v.voterId}</strong>
                    {v.reason ? `: ${v.reason}` : ''}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted voters">no votes yet</p>
            )}
            <MarkdownBlock text={answer.content} />
          </article>
        ))}
      </div>
    </section>
  );
}
