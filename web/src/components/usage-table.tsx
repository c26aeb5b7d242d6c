import { totalCost, totalUsage, type RunState } from '../../../src/types/run-state.js';
import { usd } from '../answers.js';

const n = (x: number) => x.toLocaleString('en');

/** Tokens and dollars per agent and in total, as each model call finishes. */
export function UsageTable({ run }: { run: RunState }) {
  const total = totalUsage(run);
  const priced = run.agents.some((a) => a.priced);
  return (
    <section aria-label="Cost and tokens" className="usage">
      <h2>Cost and tokens</h2>
      <div className="table-scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">agent</th>
              <th scope="col">input</th>
              <th scope="col">output</th>
              <th scope="col">cost</th>
            </tr>
          </thead>
          <tbody>
            {run.agents.map((a) => (
              <tr key={a.agentId}>
                <th scope="row">{a.agentId}</th>
                <td>{n(a.usage.inputTokens)}</td>
                <td>{n(a.usage.outputTokens)}</td>
                <td>
                  {a.priced ? (
                    usd(a.costUsd)
                  ) : a.costUsd > 0 ? (
                    // A billed tool call (media generation) of an agent whose model has no known price.
                    <span title="tool costs only: the model has no known price">{usd(a.costUsd)}+</span>
                  ) : (
                    <span className="muted">no price</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">total</th>
              <td>{n(total.inputTokens)}</td>
              <td>{n(total.outputTokens)}</td>
              <td>{priced || totalCost(run) > 0 ? usd(totalCost(run)) : '—'}</td>
            </tr>
          </tfoot>
        </table>
      </div>
    </section>
  );
}
