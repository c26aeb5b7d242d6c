import { useEffect, useState } from 'react';
import {
  api,
  startProblems,
  type LiveRun,
  type PastRun,
  type PastSession,
  type StartProblem,
} from '../api.js';
import { Evals } from './evals.js';
import { StartProblems } from './start-problems.js';

interface Runs {
  live: LiveRun[];
  past: PastRun[];
  sessions: PastSession[];
}

/** Runs of this server, past runs from `.massgen/massgen_logs` and saved sessions, newest first. */
export function History({ onOpen }: { onOpen: (id: string) => void }) {
  const [runs, setRuns] = useState<Runs>({ live: [], past: [], sessions: [] });
  useEffect(() => {
    void api.runs().then(setRuns);
  }, []);
  return (
    <section aria-label="History" className="history">
      <h2>History</h2>
      {runs.live.length === 0 && runs.past.length === 0 && <p className="muted">No runs yet.</p>}
      <ul>
        {runs.live.map((r) => (
          <li key={r.id}>
            <button className="link" onClick={() => onOpen(r.id)}>
              {r.question}
            </button>{' '}
            <span className="muted">{r.done ? 'done' : 'running'}</span>
          </li>
        ))}
        {runs.past.map((r) => (
          <li key={r.id}>
            <button className="link" onClick={() => onOpen(r.id)} aria-label={`Replay ${r.question}`}>
              {r.question || r.id}
            </button>{' '}
            <span className="muted">
              {r.startedAt?.replace('T', ' ').slice(0, 16)} · {r.status ?? 'unfinished'}
              {r.winner ? ` · ${r.winner}` : ''}
            </span>
          </li>
        ))}
      </ul>
      {runs.sessions.length > 0 && (
        <>
          <h3>Sessions</h3>
          <ul>
            {runs.sessions.map((s) => (
              <SessionRow key={s.id} session={s} onOpen={onOpen} />
            ))}
          </ul>
        </>
      )}
      <Evals />
    </section>
  );
}

/** A saved session: what it began with, and a box to ask its next turn. */
function SessionRow({ session, onOpen }: { session: PastSession; onOpen: (id: string) => void }) {
  const [question, setQuestion] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [problems, setProblems] = useState<StartProblem[] | null>(null);
  const label = `Continue ${session.firstQuestion ?? session.id}`;
  return (
    <li>
      {session.firstQuestion ?? session.id}{' '}
      <span className="muted">
        · {session.turnCount} turn{session.turnCount === 1 ? '' : 's'} · {session.id}
      </span>
      <form
        className="session-ask"
        onSubmit={(e) => {
          e.preventDefault();
          setProblem(null);
          setProblems(null);
          api.continueSession(session.id, question).then(
            (run) => onOpen(run.id),
            (error: unknown) => {
              setProblems(startProblems(error));
              setProblem(String(error instanceof Error ? error.message : error));
            },
          );
        }}
      >
        <input aria-label={label} value={question} onChange={(e) => setQuestion(e.target.value)} />{' '}
        <button type="submit" disabled={question.trim() === ''}>
          Ask
        </button>
        {problems ? <StartProblems problems={problems} /> : problem && <p role="alert">{problem}</p>}
      </form>
    </li>
  );
}
