import { useEffect, useState } from 'react';
import {
  api,
  ApiError,
  startProblems,
  type ConfigChoice,
  type StartProblem,
  type ValidationReport,
} from '../api.js';
import { attachmentProblem, toUploads } from '../media.js';
import { AttachFiles, useDropFiles } from './attach-files.js';
import { Diagnostics } from './diagnostics.js';
import { StartProblems } from './start-problems.js';

/**
 * The picker's text for a config: its name, and what it lacks when it cannot run now (keys to set, a
 * local server that does not answer, a model to download).
 */
const choiceText = (c: ConfigChoice) => {
  if (c.runnable !== false) return c.label;
  const lacks = [
    ...(c.missing?.length ? [`needs ${c.missing.join(', ')}`] : []),
    ...(c.needs ?? []).map((n) => n.summary),
  ];
  return `${c.label} — ${lacks.length > 0 ? lacks.join('; ') : 'has problems'}`;
};

/** The config to start on: the one the CLI would use here if it can run, else the first that can. */
const initialChoice = (list: readonly ConfigChoice[]) => {
  const fallback = list.find((c) => c.default);
  const runnable = list.filter((c) => c.runnable !== false);
  return (runnable.find((c) => c.default) ?? runnable[0] ?? fallback ?? list[0])?.ref ?? '';
};

/** The question box, the config picker and the Run button. */
export function AskForm({ onStarted }: { onStarted: (runId: string) => void }) {
  const [configs, setConfigs] = useState<ConfigChoice[]>([]);
  const [config, setConfig] = useState('');
  const [question, setQuestion] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [report, setReport] = useState<ValidationReport | null>(null);
  const [problems, setProblems] = useState<StartProblem[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [files, setFiles] = useState<File[]>([]);
  const [attachError, setAttachError] = useState<string | null>(null);
  const attach = (next: File[]) => {
    setFiles(next);
    setAttachError(attachmentProblem(next));
  };
  const drop = useDropFiles((dropped) => attach([...files, ...dropped]));

  useEffect(() => {
    api
      .configs()
      .then((list) => {
        setConfigs(list);
        // Start on the first config that can run with the keys set (the `--config` one first).
        setConfig((current) => current || initialChoice(list));
      })
      .catch((e: unknown) => setError(String(e)));
  }, []);

  const chosen = configs.find((c) => c.ref === config);
  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setReport(null);
    setProblems(null);
    setAttachError(attachmentProblem(files));
    try {
      const run = await api.start(question, config, undefined, await toUploads(files));
      onStarted(run.id);
    } catch (e) {
      // A refused file (its type, its size) is shown by the files, not as a problem of the run.
      const message = e instanceof Error ? e.message : String(e);
      if (e instanceof ApiError && (e.status === 413 || /^attachments\[/.test(message))) {
        setAttachError(message);
        return;
      }
      // Errors in the file: the same lines as --validate (its warnings list any missing key too).
      // Otherwise (keys, workspaces…): every problem with its fix.
      const validation =
        e instanceof ApiError ? (e.body['report'] as ValidationReport | undefined) : undefined;
      if (validation && validation.errors.length > 0) setReport(validation);
      else setProblems(startProblems(e));
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
        className={drop.dragging ? 'dropping' : undefined}
        value={question}
        onChange={(e) => setQuestion(e.target.value)}
        rows={3}
        placeholder="What should the agents work on? Drop images, audio, video or PDFs here to attach them."
        {...drop.handlers}
      />
      <AttachFiles files={files} onChange={attach} error={attachError} />
      <div className="row">
        <label htmlFor="config">Config</label>
        <select
          id="config"
          value={config}
          onChange={(e) => setConfig(e.target.value)}
          aria-describedby={chosen?.runnable === false ? 'config-missing' : undefined}
        >
          {(['flag', 'project', 'user', 'example'] as const).map((source) => (
            <optgroup
              key={source}
              label={
                { flag: '--config', project: 'This folder', user: 'Your config', example: 'Examples' }[source]
              }
            >
              {configs
                .filter((c) => c.source === source)
                .map((c) => (
                  <option
                    key={c.ref}
                    value={c.ref}
                    className={c.runnable === false ? 'not-runnable' : undefined}
                  >
                    {c.runnable === false ? '⚠ ' : ''}
                    {choiceText(c)}
                  </option>
                ))}
            </optgroup>
          ))}
        </select>
        <button
          type="submit"
          disabled={busy || question.trim() === '' || config === '' || attachmentProblem(files) !== null}
        >
          Run
        </button>
      </div>
      {chosen?.runnable === false && (
        <div className="muted config-missing" id="config-missing">
          {chosen.missing?.length ? (
            <p>
              {chosen.label} cannot run yet: set {chosen.missing.join(', ')} (in the environment or a{' '}
              <code>.env</code> file) and restart <code>massgen --web</code>.
            </p>
          ) : chosen.needs?.length ? null : (
            <p>
              {chosen.label} has problems{chosen.error ? `: ${chosen.error}` : ''} — <code>Run</code> lists
              them all.
            </p>
          )}
          {chosen.needs?.map((need) => (
            <p key={need.message}>{need.message}</p>
          ))}
        </div>
      )}
      {error && !report && !problems && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {problems && <StartProblems problems={problems} />}
      {report && <Diagnostics report={report} />}
    </form>
  );
}
