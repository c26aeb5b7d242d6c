import { totalUsage, type RunState } from '../../../src/types/run-state.js';
import { formatAgentsCost } from '../../../src/util/cost-text.js';

const n = (x: number) => x.toLocaleString('en');

/** Tokens and dollars per agent and in total, as each model call finishes. */
export function UsageTable({ run }: { run: RunState }) {
  const total = totalUsage(run);
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
                <td title={a.priced ? undefined : 'no price is known for this model'}>
                  {formatAgentsCost([a])}
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">total</th>
              <td>{n(total.inputTokens)}</td>
              <td>{n(total.outputTokens)}</td>
              <td>{formatAgentsCost(run.agents)}</td>
            </tr>
          </tfoot>
        </table>
      </div>
    </section>
  );
}
