import { useEffect, useState } from 'react';
import { api, ApiError, type ConfigChoice, type ValidationReport } from '../api.js';
import { Diagnostics } from './diagnostics.js';

/** The question box, the config picker and the Run button. */
export function AskForm({ onStarted }: { onStarted: (runId: string) => void }) {
  const [configs, setConfigs] = useState<ConfigChoice[]>([]);
  const [config, setConfig] = useState('');
  const [question, setQuestion] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [report, setReport] = useState<ValidationReport | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api
      .configs()
      .then((list) => {
        setConfigs(list);
        setConfig((current) => current || list[0]?.ref || '');
      })
      .catch((e: unknown) => setError(String(e)));
  }, []);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setReport(null);
    try {
      const run = await api.start(question, config);
      onStarted(run.id);
    } catch (e) {
      if (e instanceof ApiError && e.body['report']) setReport(e.body['report'] as ValidationReport);
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="ask" onSubmit={submit}>
      <label htmlFor="question">Question</label>
      <textarea
        id="question"
        value={question}
        onChange={(e) => setQuestion(e.target.value)}
        rows={3}
        placeholder="What should the agents work on?"
      />
      <div className="row">
        <label htmlFor="config">Config</label>
        <select id="config" value={config} onChange={(e) => setConfig(e.target.value)}>
          {(['flag', 'project', 'example'] as const).map((source) => (
            <optgroup
              key={source}
              label={{ flag: '--config', project: 'This folder', example: 'Examples' }[source]}
            >
              {configs
                .filter((c) => c.source === source)
                .map((c) => (
                  <option key={c.ref} value={c.ref}>
                    {c.label}
                  </option>
                ))}
            </optgroup>
          ))}
        </select>
        <button type="submit" disabled={busy || question.trim() === '' || config === ''}>
          Run
        </button>
      </div>
      {error && !report && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {report && <Diagnostics report={report} />}
    </form>
  );
}
