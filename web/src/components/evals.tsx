import { useEffect, useState } from 'react';
import type {
  EvalReportResponse as EvalReport,
  EvalsResponse,
  PastEval,
} from '../../../src/types/web-api.js';

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { credentials: 'same-origin' });
  const data = (await response.json().catch(() => ({}))) as T & { error?: string };
  if (!response.ok) throw new Error(data.error ?? response.statusText);
  return data;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The evals found in the project (`massgen eval` output folders): each opens its table and chart. */
export function Evals() {
  const [evals, setEvals] = useState<PastEval[]>([]);
  const [open, setOpen] = useState<string | null>(null);
  useEffect(() => {
    void getJson<EvalsResponse>('/api/evals').then(setEvals, () => setEvals([]));
  }, []);
  if (evals.length === 0) return null;
  return (
    <>
      <h3>Evals</h3>
      <ul>
        {evals.map((e) => (
          <li key={e.id}>
            <button
              className="link"
              aria-expanded={open === e.id}
              onClick={() => setOpen(open === e.id ? null : e.id)}
              aria-label={`Eval ${e.id}`}
            >
              {e.id}
            </button>{' '}
            <span className="muted">
              {e.writtenAt.replace('T', ' ').slice(0, 16)} · {e.questions} questions · {e.scorer}
              {e.teamAccuracy === null ? '' : ` · team ${pct(e.teamAccuracy)}`}
            </span>
            {open === e.id && <EvalView item={e} />}
          </li>
        ))}
      </ul>
    </>
  );
}

/** One eval: its accuracy table and its chart (an image from the server, never inlined). */
function EvalView({ item }: { item: PastEval }) {
  const [report, setReport] = useState<EvalReport | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    getJson<EvalReport>(`/api/evals/report?id=${encodeURIComponent(item.id)}`).then(
      setReport,
      (error: unknown) => setProblem(String(error instanceof Error ? error.message : error)),
    );
  }, [item.id]);
  if (problem) return <p role="alert">{problem}</p>;
  if (!report) return <p className="muted">Loading…</p>;
  return (
    <div className="eval-view">
      <table aria-label={`Accuracy of eval ${item.id}`}>
        <thead>
          <tr>
            <th scope="col">system</th>
            <th scope="col">right</th>
            <th scope="col">accuracy</th>
            <th scope="col">95% CI</th>
            <th scope="col">tokens / question</th>
            <th scope="col">cost / question</th>
            <th scope="col">team / other, McNemar p</th>
          </tr>
        </thead>
        <tbody>
          {report.summary.systems.map((s) => (
            <tr key={s.name}>
              <th scope="row">{s.name}</th>
              <td>
                {s.correct}/{s.n}
              </td>
              <td>{pct(s.accuracy)}</td>
              <td>
                {pct(s.ci95.low)} – {pct(s.ci95.high)}
              </td>
              <td>{s.tokensPerQuestion === null ? '—' : s.tokensPerQuestion.toFixed(0)}</td>
              <td>{s.costUsdPerQuestion === null ? '—' : `$${s.costUsdPerQuestion.toFixed(4)}`}</td>
              <td>
                {s.vsTeam
                  ? `${s.vsTeam.teamOnly} / ${s.vsTeam.baselineOnly}, p = ${s.vsTeam.pValue.toFixed(4)}`
                  : '—'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {item.hasChart && (
        <img
          className="eval-chart"
          src={`/api/evals/chart?id=${encodeURIComponent(item.id)}`}
          alt={`Accuracy against cost, eval ${item.id}`}
        />
      )}
    </div>
  );
}
