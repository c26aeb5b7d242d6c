import { api } from '../api.js';
import { heldKey, type PermissionsView } from '../permissions-view.js';
import type { PendingApproval } from '../run-view.js';

/**
 * The Approvals area: tool calls waiting for a person (with the `ask` rule that holds each), and the
 * audit ledger of every decision on a tool call — what `permissions.jsonl` in the log folder holds.
 */
export function Approvals({
  runId,
  pending,
  permissions,
  live,
}: {
  runId: string;
  pending: readonly PendingApproval[];
  permissions: PermissionsView;
  live: boolean;
}) {
  if (pending.length === 0 && permissions.ledger.length === 0) return null;
  return (
    <section aria-label="Approvals" className="approvals">
      {pending.length > 0 && (
        <>
          <h2>Tool calls waiting for you</h2>
          {pending.map((a) => {
            const rule = permissions.heldBy[heldKey(a.agentId, a.callId)];
            return (
              <div key={`${a.agentId}/${a.callId}`} className="approval">
                <code>
                  {a.agentId}: {a.toolName}({a.arguments})
                </code>
                {rule && <span className="muted"> — asked by {rule}</span>}{' '}
                {live && (
                  <>
                    <button
                      type="button"
                      aria-label={`Approve ${a.toolName} for ${a.agentId}`}
                      onClick={() => void api.approve(runId, a.agentId, a.callId, true)}
                    >
                      Approve
                    </button>{' '}
                    <button
                      type="button"
                      aria-label={`Deny ${a.toolName} for ${a.agentId}`}
                      onClick={() => void api.approve(runId, a.agentId, a.callId, false)}
                    >
                      Deny
                    </button>
                  </>
                )}
              </div>
            );
          })}
        </>
      )}
      {permissions.ledger.length > 0 && (
        <details open={pending.length === 0}>
          <summary>Permission decisions ({permissions.ledger.length})</summary>
          <table aria-label="Permission decisions" className="ledger">
            <thead>
              <tr>
                <th scope="col">time</th>
                <th scope="col">agent</th>
                <th scope="col">tool</th>
                <th scope="col">arguments</th>
                <th scope="col">decision</th>
                <th scope="col">by</th>
                <th scope="col">rule</th>
              </tr>
            </thead>
            <tbody>
              {permissions.ledger.map((row) => (
                <tr key={row.seq} className={row.decision === 'deny' ? 'denied' : undefined}>
                  <td>{new Date(row.ts).toLocaleTimeString()}</td>
                  <td>{row.agentId}</td>
                  <td>
                    <code>{row.toolName}</code>
                  </td>
                  <td>
                    <code className="args">{row.arguments}</code>
                  </td>
                  <td title={row.reason ?? undefined}>{row.decision}</td>
                  <td>{row.by}</td>
                  <td>{row.rule ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </section>
  );
}
