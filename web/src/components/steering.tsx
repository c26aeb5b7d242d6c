import { useState } from 'react';
import { api } from '../api.js';

const MAX_MESSAGE = 4000;

/**
 * Talking to the agents while they work: a message to all of them or to one (each receives it at its
 * next step; the timeline shows it and who has received it), and "Answer now", which stops the
 * discussion and has the best answer so far presented.
 */
export function Steering({
  runId,
  agentIds,
  answerNowAsked,
  hasAnswers,
}: {
  runId: string;
  agentIds: string[];
  answerNowAsked: boolean;
  /** "Answer now" needs an answer to present. */
  hasAnswers: boolean;
}) {
  const [text, setText] = useState('');
  const [target, setTarget] = useState('');
  const [status, setStatus] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [asked, setAsked] = useState(false);

  const send = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      await api.message(runId, text.trim(), target || null);
      setText('');
      setStatus(`Sent to ${target || 'all agents'}: each receives it at its next step.`);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };

  const answerNow = async () => {
    setProblem(null);
    setAsked(true);
    try {
      await api.answerNow(runId);
      setStatus('Asked for the answer now: the best answer so far is being presented.');
    } catch (error) {
      setAsked(false);
      setProblem(error instanceof Error ? error.message : String(error));
    }
  };

  return (
    <section aria-label="Steer the agents" className="steering">
      <form onSubmit={send}>
        <label htmlFor="steer-text">Message to the agents</label>
        <textarea
          id="steer-text"
          rows={2}
          maxLength={MAX_MESSAGE}
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="A hint, a correction, a constraint…"
        />
        <div className="row">
          <label htmlFor="steer-target">Send to</label>
          <select id="steer-target" value={target} onChange={(e) => setTarget(e.target.value)}>
            <option value="">All agents</option>
            {agentIds.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
          <button type="submit" disabled={busy || text.trim() === ''}>
            Send
          </button>
          <button
            type="button"
            className="answer-now"
            disabled={asked || answerNowAsked || !hasAnswers}
            onClick={() => void answerNow()}
            title={
              hasAnswers
                ? 'Stop the discussion and present the best answer so far'
                : 'Possible once an agent has answered'
            }
          >
            Answer now
          </button>
        </div>
      </form>
      <p role="status" className="muted">
        {status}
      </p>
      {problem && (
        <p role="alert" className="error">
          {problem}
        </p>
      )}
    </section>
  );
}
