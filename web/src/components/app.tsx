import { useEffect, useState } from 'react';
import { AskForm } from './ask-form.js';
import { History } from './history.js';
import { RunPage } from './run-page.js';

/** Two pages: the start page (ask, history) and a run (`/runs/ID`). */
export function App() {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const onPop = () => setPath(location.pathname);
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const navigate = (next: string) => {
    history.pushState(null, '', next);
    setPath(next);
  };
  const match = /^\/runs\/([^/]+)$/.exec(path);
  if (match) {
    const runId = decodeURIComponent(match[1] ?? '');
    // Keyed by run: a follow-up starts from a fresh page state, not the previous run's.
    return <RunPage key={runId} runId={runId} onNavigate={navigate} />;
  }
  return (
    <main>
      <h1>massgen</h1>
      <p className="muted">
        Several agents answer in parallel, read each other&apos;s answers and vote on the best.
      </p>
      <AskForm onStarted={(id) => navigate(`/runs/${id}`)} />
      <History onOpen={(id) => navigate(`/runs/${id}`)} />
    </main>
  );
}
